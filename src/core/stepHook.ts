// A callback at a named step of a long operation, for crash injection in tests: it may block,
// throw, or SIGKILL its own process, so a test can stop a run exactly at a step with no timing
// involved (the pattern of src/workspace/hooks.ts). Production passes none. Synchronous steps
// (a file write half done) ignore a returned promise: a hook that wants to stop there must block
// synchronously; asynchronous steps (a model call, a grading run in progress) await it.
export type StepHook<Point extends string> = (point: Point, detail: string) => void | Promise<void>;
