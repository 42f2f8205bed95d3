// The project's own modules for a test's child process, loaded the way bin/tca.js loads the CLI:
// from the compiled lib/ when that build matches src/ byte for byte, else src/ through tsx. A child
// that needs no test-only TypeScript starts this way without tsx's loader (about 0.5 CPU-s of
// every start, most of what a short child costs) and never runs stale code.
import { fileURLToPath } from "node:url";
import { compiledBuildStatus } from "../../bin/compiledBuild.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const build = process.env.TCA_NO_COMPILED === "1" ? { fresh: false } : compiledBuildStatus(ROOT);
if (!build.fresh) {
  const { register } = await import("tsx/esm/api");
  register();
}

/**
 * Whether this process loads lib/ (true) or src/ (false, tsx registered). A child imports each
 * module by a literal path on either side: compiled ? await import("../../lib/x.js") : await import("../../src/x.ts").
 */
export const compiled = build.fresh;
