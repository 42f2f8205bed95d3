// The clock moved to src/core/clock.ts (one monotonic clock, one fake, for every room). This
// re-export keeps work in flight on other branches compiling; import from src/core/clock.ts.
export { ManualClock, systemClock, type MonotonicClock } from "../core/clock.ts";
