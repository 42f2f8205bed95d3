// The module hooks of test/support/compiledSourceLoader.mjs (registered there; they run on node's
// loader thread). Hand-written rather than tsx because the suite needs only two things, and
// tsx's general machinery (its resolver's extension probing, tsconfig paths, CommonJS interop,
// its transform cache) on top of src/'s unbundled graph cost about 0.65 CPU-s to import
// src/verdicts/runVerdict.ts, where this loader takes about 0.15 s (lib/ alone 0.07 s):
//   - resolve: a TypeScript module of src/ becomes its compiled twin in lib/, the build that
//     `pretest:unit` made a moment ago (scripts/compile.mjs: src/a/b.ts → lib/a/b.js, one to one,
//     same tree shape; the other files of src/ are copied to the same path in lib/). Every file of
//     src/ is redirected, not only the .ts ones, so a test and the modules it tests share one
//     instance of each (module state, instanceof, a JSON table) whichever side imported it. The
//     loader refuses to start on a build that is not exactly the current src/ (the entry checks
//     the stamp), and a src/ file with no twin in lib/ is an error, never a silent fall-back.
//   - load: every other .ts file (the test files, their support modules, scripts/, training/,
//     bench/) has its types stripped by esbuild's transform, with an inline source map so stack
//     traces and the test runner's `location:` lines name the .ts file and its lines.
// Everything else is node's own resolution and loading, untouched.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";

const ROOT_URL = new URL("../../", import.meta.url).href;
const SRC_URL = `${ROOT_URL}src/`;
const LIB_URL = `${ROOT_URL}lib/`;

// The project's compiler options (verbatimModuleSyntax, target, …), as the compile step's
// esbuild.build reads them from tsconfig.json, so a test file is stripped as src/ is compiled.
const { compilerOptions } = JSON.parse(readFileSync(new URL("tsconfig.json", ROOT_URL), "utf8"));

/** lib/'s twin of a src/ file URL (query and hash dropped: the build has one file per source). */
function compiledTwin(url) {
  const bare = url.split(/[?#]/, 1)[0];
  const inside = bare.slice(SRC_URL.length);
  const twin = `${LIB_URL}${inside.endsWith(".ts") && !inside.endsWith(".d.ts") ? `${inside.slice(0, -3)}.js` : inside}`;
  if (!existsSync(new URL(twin))) {
    throw new Error(
      `compiledSourceLoader: ${fileURLToPath(bare)} has no compiled twin ${fileURLToPath(twin)}; ` +
        "rebuild with `node scripts/compile.mjs` (a src/ module is never run from anywhere else)",
    );
  }
  return twin;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(SRC_URL)) return resolved;
  const url = compiledTwin(resolved.url);
  // lib/ is plain ESM JavaScript (package.json's "type": "module"); a copied file keeps node's own format.
  return { ...resolved, url, format: url.endsWith(".js") ? "module" : resolved.format };
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !/\.ts(?:$|[?#])/.test(url) || /\.d\.ts(?:$|[?#])/.test(url)) {
    return nextLoad(url, context);
  }
  const { source } = await nextLoad(url, { ...context, format: "module" });
  const file = fileURLToPath(url.split(/[?#]/, 1)[0]);
  const { code } = await transform(source, {
    loader: "ts",
    format: "esm",
    platform: "node",
    target: "node20.19", // the engines floor, as in scripts/compile.mjs
    sourcemap: "inline",
    sourcefile: file,
    tsconfigRaw: { compilerOptions },
    charset: "utf8",
    logLevel: "silent",
  });
  return { format: "module", source: code, shortCircuit: true };
}
