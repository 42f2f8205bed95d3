// The test loader of `npm run test:unit`: `node --import ./test/support/compiledSourceLoader.mjs --test …`.
// Hand-written, not tsx, because the suite needs nothing more than two things (the hooks in
// compiledSourceHooks.mjs): src/ redirected to the build `pretest:unit` has just made in lib/, and
// the types of the test files (and the other .ts outside src/) stripped. That saves about
// 0.25 CPU-s per test file on average (up to 0.5 s for a file that loads much of src/; measured
// on 103 files, 14-16% of their CPU), and the suite runs the code the CLI ships (lib/, the build
// bin/tca.js runs). A targeted run of one file through `node --import tsx --test FILE` still
// runs src/ itself, exactly as before.
//
// The build must be exactly the current src/ (bin/compiledBuild.js, the check bin/tca.js makes):
// a stale or missing lib/ stops the run here with the command that rebuilds it, never runs old code.
// The digests are read with hashTreeCached (bin/treeDigestCache.js: a file is hashed again when
// its stat changed), not bin/treeHashOnce.js's memo, so a test finds that memo as it would under tsx. TCA_NO_COMPILED=1 runs src/ itself through tsx instead, as it makes
// bin/tca.js and the tests' child helpers do (`TCA_NO_COMPILED=1 npm run test:unit`: the suite as before).
import { register } from "node:module";
import { fileURLToPath } from "node:url";
import { compiledBuildStatus } from "../../bin/compiledBuild.js";
import { hashTreeCached } from "../../bin/treeDigestCache.js";

if (process.env.TCA_NO_COMPILED === "1") {
  await import("tsx"); // what `--import tsx` loads: tsx's ESM and CommonJS hooks, registered
} else {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const build = compiledBuildStatus(root, (at, directory) => hashTreeCached(at, directory));
  if (!build.fresh) {
    throw new Error(
      `compiledSourceLoader: lib/ is not a build of this src/ (${build.reason}); ` +
        "run `node scripts/compile.mjs` (npm run test:unit does), or run the file through `node --import tsx`",
    );
  }
  // The hooks hand node inline source maps; with this, stack traces name the .ts files and their
  // lines (tsx turns the same switch on).
  process.setSourceMapsEnabled(true);
  register("./compiledSourceHooks.mjs", import.meta.url);
}
