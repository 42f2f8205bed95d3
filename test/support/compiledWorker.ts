// The model worker a test's in-process backend starts: the compiled lib/model/worker/modelWorker.js
// with plain node when lib/ matches src/ byte for byte (the build the CLI runs), else the default
// (src/ through tsx, the supervisor's own choice for src/). A test running src/ would otherwise pay
// tsx's loader and transpile on every worker start, about 2.5 CPU-s of a model load. The
// supervisor's choice itself (lib/ worker for lib/, tsx worker for src/) stays tested in
// test/cli/compiledStartup.test.ts.
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { compiledBuildStatus } from "../../bin/compiledBuild.js";
import { hashTreeOnce } from "../../bin/treeHashOnce.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Supervisor options for LocalEngineChat.create: the compiled worker when the build is fresh, else none. */
export function workerFromBuild(): { readonly supervisor?: { readonly args: readonly string[] } } {
  if (process.env.TCA_NO_COMPILED === "1" || !compiledBuildStatus(ROOT, hashTreeOnce).fresh) return {};
  return { supervisor: { args: [join(ROOT, "lib", "model", "worker", "modelWorker.js")] } };
}
