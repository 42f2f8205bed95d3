// The one Result lives in src/core (the ground floor every room may import); kept here for the existing imports.
export { err, ok, type Err, type Ok, type Result } from "../core/result.ts";
