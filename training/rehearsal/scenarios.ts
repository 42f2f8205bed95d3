// Scenarios the rehearsal model is trained on: the Lab's scripted baseline and variations of
// it, each a list of proposals the scripted source plays through the real controller. Steps
// marked `target: false` are injected faults (an invalid proposal, a stale version, a wrong
// old expression, an out-of-order edit): the model is never trained to emit them, only to
// recover from the states they lead to. Every `target: true` step follows one policy (read,
// test once, repair clamp, repair total, test, finish; re-read after a version error), so no
// two identical requests ever ask for different replies (the generator checks this).
import { BASELINE_PROPOSALS } from "../../src/constants/labConstants.ts";

export interface ScenarioStep {
  readonly text: string;
  /** true: the reply the model is trained to give to this request; false: an injected fault. */
  readonly target: boolean;
}

export interface Scenario {
  readonly id: string;
  readonly description: string;
  readonly steps: readonly ScenarioStep[];
}

const READ = '{"action":"read","file":"toy_math.py"}';
const TEST = '{"action":"test"}';
const clamp = (version: number, old = "x"): string =>
  `{"action":"replace","function":"clamp","old":"${old}","new":"lo if x < lo else hi if x > hi else x","version":${version}}`;
const total = (version: number): string =>
  `{"action":"replace","function":"total","old":"unit + qty + fee","new":"unit * qty + fee","version":${version}}`;
const finish = (version: number): string => `{"action":"finish","version":${version}}`;
const t = (text: string): ScenarioStep => ({ text, target: true });
const fault = (text: string): ScenarioStep => ({ text, target: false });

export const REHEARSAL_SCENARIOS: readonly Scenario[] = [
  { id: "baseline", description: "the Lab's scripted baseline", steps: BASELINE_PROPOSALS.map(t) },
  {
    id: "total_first",
    description: "a different order: total repaired before clamp",
    steps: [t(READ), t(TEST), fault(total(0)), t(clamp(1)), t(TEST), t(finish(2))],
  },
  {
    id: "failing_test_then_fix",
    description: "one repair, a failing public test, then the second repair",
    steps: [t(READ), fault(clamp(0)), fault(TEST), t(total(1)), t(TEST), t(finish(2))],
  },
  {
    id: "stale_version_then_reread",
    description: "an edit with a stale version is refused; re-read, then edit with the current version",
    steps: [t(READ), t(TEST), t(clamp(0)), fault(total(0)), t(READ), t(total(1))],
  },
  {
    id: "invalid_first_then_recovery",
    description: "an invalid (non-JSON) proposal first, then the repair without the early test",
    steps: [fault("I will read the file first."), t(READ), t(clamp(0)), t(total(1)), t(TEST), t(finish(2))],
  },
  {
    id: "contract_violation_then_recovery",
    description: "a proposal outside the contract mid-run, then recovery",
    steps: [t(READ), t(TEST), fault('{"action":"read","file":"../TASK.txt"}'), t(clamp(0)), t(total(1)), t(TEST)],
  },
  {
    id: "wrong_old_then_fix",
    description: "a replace with a wrong old expression is refused, then the right one",
    steps: [t(READ), t(TEST), fault(clamp(0, "x + 1")), t(clamp(0)), t(total(1)), t(TEST)],
  },
];
