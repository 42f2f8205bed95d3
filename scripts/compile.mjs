// The `prepare` step (npm ci and npm install run it in a checkout): compiles src/**/*.ts into
// plain ESM JavaScript in lib/, same tree shape, so bin/tca.js starts without a transpiler
// (tsx's loader alone costs about 0.2 s of every call). Files under src/ that are not
// TypeScript (the report viewer, the Python grading runners, JSON tables) are copied, so code
// that reads a file relative to itself finds it in lib/ exactly as in src/; lib/ being a
// sibling of src/ keeps every "../../…" from import.meta.url pointing at the same root.
//
// esbuild does the per-file TypeScript-to-JavaScript transform (types stripped, nothing
// bundled): every import is left external and a relative "./x.ts" becomes "./x.js" through
// esbuild's own parser, not a text rewrite. The one exception: the packages in BUNDLED_PACKAGES
// (bin/compiledBuild.js) are bundled once each into lib/_bundled/<name>.js and imported from
// there, because loading their hundreds of small modules is most of a start. The bytes compiled are the bytes hashed into the
// build stamp (read once, handed to esbuild), so a file edited during the compile can never
// be stamped as compiled. The build goes to a scratch folder and is swapped in whole, stamp
// written last: a tca starting meanwhile finds no fresh build and runs src through tsx.
//
// Usage: node scripts/compile.mjs [--root <checkout>]   (tests build a temporary copy)
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PRECOMPILED_MODULE = "recording/precompiledValidatorTable.js";
const VALIDATOR_FOLDER = "precompiledValidators";
import {
  BUNDLED_DIRECTORY,
  BUNDLED_PACKAGES,
  CLI_BUNDLE_DIRECTORY,
  COMPILE_SCRIPT,
  COMPILED_DIRECTORY,
  STAMP_NAME,
  STAMP_SCHEMA,
  installedPackageJson,
  listFiles,
  sha256Hex,
} from "../bin/compiledBuild.js";

const started = performance.now();
const args = process.argv.slice(2);
const rootFlag = args.indexOf("--root");
if (args.length !== 0 && !(args.length === 2 && rootFlag === 0)) {
  process.stderr.write("tca compile: usage_error: usage: node scripts/compile.mjs [--root <checkout>]\n");
  process.exit(2);
}
const root = rootFlag === 0 ? resolve(args[1]) : fileURLToPath(new URL("..", import.meta.url));

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  // Not an error: bin/tca.js runs src through tsx when there is no build.
  process.stdout.write("tca compile: esbuild is not installed; skipped (tca runs src/ through tsx)\n");
  process.exit(0);
}

const sources = new Map(listFiles(root, "src").map((path) => [path, readFileSync(join(root, path))]));
if ([...sources.keys()].some((path) => path.startsWith(`src/${BUNDLED_DIRECTORY}/`))) {
  process.stderr.write(
    `tca compile: compile_failed: src/${BUNDLED_DIRECTORY}/ is reserved for the bundled packages in lib/\n`,
  );
  process.exit(1);
}
const typescript = [...sources.keys()].filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts"));
const copied = [...sources.keys()].filter((path) => !typescript.includes(path) && !path.endsWith(".d.ts"));

/** Reads nothing from disk (the hashed bytes are the compiled bytes) and bundles nothing. */
const stampedSourcesOnly = {
  name: "stamped-sources-only",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (resolving) => {
      if (resolving.kind === "entry-point") return { path: resolve(resolving.path), namespace: "file" };
      if (BUNDLED_PACKAGES.includes(resolving.path)) {
        // lib/<dir>/x.js imports lib/_bundled/<name>.js by a relative path, as src/<dir>/x.ts would.
        const from = relative(join(root, "src"), dirname(resolving.importer));
        const target = relative(from, `${BUNDLED_DIRECTORY}/${resolving.path}.js`).split("\\").join("/");
        return { path: target.startsWith(".") ? target : `./${target}`, external: true };
      }
      const relativeTs = /^\.\.?\//.test(resolving.path) && resolving.path.endsWith(".ts");
      return { path: relativeTs ? `${resolving.path.slice(0, -3)}.js` : resolving.path, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, (loading) => {
      const bytes = sources.get(relative(root, loading.path).split("\\").join("/"));
      if (bytes === undefined) return { errors: [{ text: `not a stamped source: ${loading.path}` }] };
      return { contents: bytes, loader: "ts" };
    });
  },
};

/** What every build here makes: ES modules for node, in memory (written by `put` below), bundled. */
const NODE_ESM_BUILD = {
  bundle: true,
  write: false,
  format: "esm",
  platform: "node",
  target: "node20.19", // the engines floor: older targets make esbuild drop import attributes (`with { type: "json" }`)
  charset: "utf8",
  logLevel: "error",
};

let result;
try {
  result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: typescript.map((path) => join(root, path)),
    outbase: join(root, "src"),
    outdir: join(root, COMPILED_DIRECTORY),
    ...NODE_ESM_BUILD,
    plugins: [stampedSourcesOnly],
  });
} catch (error) {
  // esbuild has printed the details; lib/ is left as it was (a stale build is never run).
  const first = error?.errors?.[0];
  const where = first?.location ? `${first.location.file}:${first.location.line}: ` : "";
  process.stderr.write(`tca compile: compile_failed: ${where}${first?.text ?? "esbuild failed"}\n`);
  process.exit(1);
}

// Each bundled package as one ES module with the package's own exports (named and default). Its
// package.json digest is read before the bundle, so a package replaced meanwhile reads as stale.
const bundled = {};
const bundles = [];
/** Each bundled package loaded as node loads it, by a literal specifier (never a computed one). */
const LOAD_BUNDLED = {
  typebox: () => import("typebox"),
  ajv: () => import("ajv"),
  diff: () => import("diff"),
  commander: () => import("commander"),
};
for (const name of BUNDLED_PACKAGES) {
  const manifest = installedPackageJson(root, name);
  if (manifest === null) {
    process.stderr.write(`tca compile: compile_failed: the ${name} package is not installed\n`);
    process.exit(1);
  }
  bundled[name] = { version: JSON.parse(manifest.toString("utf8")).version, package_json_sha256: sha256Hex(manifest) };
  // The export names as node sees them (for a CommonJS package, its lexer's names), listed
  // one by one: `export *` cannot re-export a CommonJS module's names from an ES module.
  let names;
  let hasDefault;
  try {
    const load = LOAD_BUNDLED[name];
    if (load === undefined) throw new Error(`no loader for ${name} in LOAD_BUNDLED`);
    const exported = Object.keys(await load());
    names = exported.filter((key) => key !== "default" && /^[A-Za-z_$][\w$]*$/.test(key));
    // A package without a default export (diff) gets none: the bundle exports what the package does.
    hasDefault = exported.includes("default");
  } catch (error) {
    process.stderr.write(`tca compile: compile_failed: ${name} does not load: ${error?.message ?? error}\n`);
    process.exit(1);
  }
  try {
    const bundle = await esbuild.build({
      absWorkingDir: root,
      stdin: {
        contents: `export { ${names.join(", ")} } from "${name}";\n${hasDefault ? `export { default } from "${name}";\n` : ""}`,
        resolveDir: root,
        loader: "js",
      },
      ...NODE_ESM_BUILD,
      // A CommonJS package's require() of node's own modules (commander's node:events) stays a
      // require: esbuild's ES module output calls the `require` in scope, made here for the bundle.
      banner: {
        js: 'import { createRequire as createBundleRequire } from "node:module";\nconst require = createBundleRequire(import.meta.url);',
      },
      outfile: join(root, COMPILED_DIRECTORY, BUNDLED_DIRECTORY, `${name}.js`),
    });
    bundles.push([`${BUNDLED_DIRECTORY}/${name}.js`, bundle.outputFiles[0].contents]);
  } catch (error) {
    process.stderr.write(
      `tca compile: compile_failed: bundling ${name}: ${error?.errors?.[0]?.text ?? "esbuild failed"}\n`,
    );
    process.exit(1);
  }
}

const scratch = join(root, `.${COMPILED_DIRECTORY}-build-${process.pid}`);
rmSync(scratch, { recursive: true, force: true });
// A failure below leaves no scratch folder behind (and lib/ as it was, or absent).
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const outputs = {};
const put = (relativePath, bytes) => {
  const target = join(scratch, relativePath);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bytes);
  outputs[`${COMPILED_DIRECTORY}/${relativePath}`] = sha256Hex(bytes);
};
for (const file of result.outputFiles)
  put(relative(join(root, COMPILED_DIRECTORY), file.path).split("\\").join("/"), file.contents);
for (const path of copied) put(path.slice("src/".length), sources.get(path));
for (const [path, bytes] of bundles) put(path, bytes);
put(PRECOMPILED_MODULE, await precompiledValidators());
try {
  for (const [path, bytes] of await cliBundle()) put(path, bytes);
} catch (error) {
  process.stderr.write(
    `tca compile: compile_failed: bundling the command: ${error?.errors?.[0]?.text ?? error?.message ?? "esbuild failed"}\n`,
  );
  process.exit(1);
}

/**
 * lib/_cli/: the command as one ES module, made from the per-file build just written to the
 * scratch folder (the generated validator table included), each lazily imported subcommand a
 * chunk of its own beside it, so a command still loads only what it runs. What stays outside:
 * packages (node_modules, and lib/_bundled/'s one-file packages, which lib/ imports by a path),
 * files outside lib/ (bin/, package.json) and the validators' .cjs files, so bin/treeHashOnce.js's
 * memo is the one bin/tca.js filled, and the package.json read is today's. Each module's
 * import.meta.url is the URL of its own file in lib/ (`define` makes every import.meta.url the
 * module's own constant, set from its chunk's URL): a file read beside a module, createRequire,
 * the model worker's path and runningCode resolve exactly as in the per-file build.
 */
async function cliBundle() {
  const outdir = join(scratch, CLI_BUNDLE_DIRECTORY);
  const toOutdir = (target) => {
    const path = relative(outdir, target).split(sep).join("/");
    return path.startsWith(".") ? path : `./${path}`;
  };
  const inScratch = (path) => path.startsWith(`${scratch}${sep}`);
  const fromScratch = {
    name: "per-file-build-only",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (resolving) => {
        if (resolving.kind === "entry-point") return { path: resolving.path, namespace: "file" };
        if (!/^\.\.?\//.test(resolving.path)) return { path: resolving.path, external: true };
        const target = resolve(dirname(resolving.importer), resolving.path);
        const bundledHere =
          inScratch(target) &&
          !target.startsWith(join(scratch, BUNDLED_DIRECTORY) + sep) &&
          (target.endsWith(".js") || target.endsWith(".json"));
        // Outside the per-file build (bin/, package.json), a one-file package, a validator file.
        if (!bundledHere) return { path: toOutdir(target), external: true };
        return { path: target, namespace: "file" };
      });
      build.onLoad({ filter: /\.js$/ }, (loading) => {
        const inLib = relative(outdir, loading.path).split(sep).join("/");
        const contents = readFileSync(loading.path, "utf8");
        // MODULE_URL is this module's own (esbuild renames each module's copy apart); CHUNK_URL,
        // the banner's, is the URL of the file the module ends up in, which lies in lib/_cli/.
        const prelude = `const ${MODULE_URL} = new URL(${JSON.stringify(inLib)}, ${CHUNK_URL}).href;\n`;
        return { contents: prelude + contents, loader: "js" };
      });
    },
  };
  const MODULE_URL = "__tcaModuleUrl";
  const CHUNK_URL = "__tcaChunkUrl";
  const result = await esbuild.build({
    // The scratch folder as the working directory: any path esbuild writes into the bundle names
    // lib/'s files, not the scratch folder's (process-numbered) name, so a rebuild is byte-identical.
    absWorkingDir: scratch,
    entryPoints: [join(scratch, "cli", "main.js")],
    outdir,
    ...NODE_ESM_BUILD,
    splitting: true,
    chunkNames: "chunk-[hash]",
    define: { "import.meta.url": MODULE_URL },
    // Less to parse at each start; names are kept, so a stack trace still names the functions
    // (lib/'s per-file build, which the tests import, stays as readable as before).
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: `const ${CHUNK_URL} = import.meta.url;` },
    plugins: [fromScratch],
  });
  return result.outputFiles.map((file) => [relative(scratch, file.path).split(sep).join("/"), file.contents]);
}

/**
 * lib/recording/precompiledValidators.js: the evidence validators as Ajv's standalone code (#36),
 * made from the schemas of this very build (its modules, loaded from the scratch folder) with the
 * readers' own options, each keyed and stamped with its schema's digest by the readers' functions
 * (src/recording/precompiledValidators.ts). Every catalog an eventReader reads is listed here; a
 * test checks that each of their event types, and each evidence file, has its validator.
 */
async function precompiledValidators() {
  // The modules of this build, in the scratch folder this script made (a path of its own, never
  // model-derived text): the only way to read the schemas exactly as the build compiled them.
  // eslint-disable-next-line no-restricted-syntax -- see above
  const load = (path) => import(pathToFileURL(join(scratch, path)).href);
  const { validatorKey, schemaDigest } = await load("recording/precompiledValidators.js");
  const { ENVELOPE_AJV_OPTIONS } = await load("recording/evidenceEnvelope.js");
  const { EVIDENCE_FILE_AJV_OPTIONS, EVIDENCE_SCHEMA_NAMES, evidenceFileSchema } =
    await load("recording/evidenceSchemas.js");
  const { LAB_AUDIT_FORMAT, LAB_AUDIT_EVENTS } = await load("recording/labAuditEvents.js");
  const { BENCH_TRACE_FORMAT } = await load("bench/agent/taskTrace.js");
  const { BENCH_TRACE_EVENTS } = await load("bench/runs/benchTrace.js");
  const events = [
    [LAB_AUDIT_FORMAT, LAB_AUDIT_EVENTS],
    [BENCH_TRACE_FORMAT, BENCH_TRACE_EVENTS],
  ].flatMap(([format, catalog]) =>
    Object.keys(catalog).map((type) => [validatorKey("event", format, type), catalog[type]]),
  );
  const files = EVIDENCE_SCHEMA_NAMES.map((name) => [validatorKey("file", name), evidenceFileSchema(name)]);
  const { Ajv } = await import("ajv");
  const { default: standaloneCode } = await import("ajv/dist/standalone/index.js");
  const entries = [];
  // One file per catalog (the Lab audit's events, the bench trace's) and one for the evidence
  // files: a Lab verdict reads one audit and two files, so it loads two files where it loaded one
  // per event type and file, each require costing more than its parse (#36). Ajv's multi-export
  // code shares what the validators of a file have in common, and esbuild minifies it (the same
  // code, less to parse; the test compares every validator with a run-time compile, errors too).
  const groups = [
    ["tca.audit", ENVELOPE_AJV_OPTIONS, events.filter(([key]) => key.startsWith(`event:${LAB_AUDIT_FORMAT}:`))],
    ["tca.trace", ENVELOPE_AJV_OPTIONS, events.filter(([key]) => key.startsWith(`event:${BENCH_TRACE_FORMAT}:`))],
    ["files", EVIDENCE_FILE_AJV_OPTIONS, files],
  ];
  if (groups.reduce((n, [, , schemas]) => n + schemas.length, 0) !== events.length + files.length)
    throw new Error("a validator belongs to no group of precompiledValidators()");
  for (const [name, options, schemas] of groups) {
    // Compiled once here, so with Ajv's optimising pass that a compile at start skips: the same
    // verdicts (the test compares every one with a compile under the readers' options), less code.
    const ajv = new Ajv({ ...options, code: { ...(options.code ?? {}), optimize: true, source: true } });
    const exported = {};
    for (const [key, schema] of schemas) {
      ajv.addSchema(schema, key);
      exported[key] = key;
    }
    // A CommonJS file required only when a reader first needs one of its validators (synchronously,
    // as the readers are); its only imports are Ajv's small runtime helpers from node_modules.
    const file = `${VALIDATOR_FOLDER}/${name}.cjs`;
    const { code } = await esbuild.transform(standaloneCode(ajv, exported), {
      minify: true,
      format: "cjs",
      platform: "node",
      target: "node20.19",
      charset: "utf8",
    });
    put(`recording/${file}`, code);
    for (const [key, schema] of schemas)
      entries.push(
        `  ${JSON.stringify(key)}: { schemaSha256: ${JSON.stringify(schemaDigest(schema))}, load: () => require(${JSON.stringify(`./${file}`)})[${JSON.stringify(key)}] }`,
      );
  }
  return (
    "// Generated by scripts/compile.mjs from this build's schemas (src/recording/precompiledValidators.ts).\n" +
    'import { createRequire } from "node:module";\n' +
    "const require = createRequire(import.meta.url);\n" +
    `export const PRECOMPILED_VALIDATORS = Object.freeze({\n${entries.join(",\n")},\n});\n`
  );
}

const stamp = {
  schema: STAMP_SCHEMA,
  // The recipe that ran (this file), which bin/tca.js compares with <root>/scripts/compile.mjs.
  compiler: {
    script: COMPILE_SCRIPT,
    script_sha256: sha256Hex(readFileSync(new URL(import.meta.url))),
    esbuild: esbuild.version,
  },
  bundled,
  sources: Object.fromEntries([...sources].map(([path, bytes]) => [path, sha256Hex(bytes)])),
  outputs: Object.fromEntries(
    Object.keys(outputs)
      .sort()
      .map((path) => [path, outputs[path]]),
  ),
};
writeFileSync(join(scratch, STAMP_NAME), `${JSON.stringify(stamp, null, 1)}\n`);

const live = join(root, COMPILED_DIRECTORY);
const retired = join(root, `.${COMPILED_DIRECTORY}-old-${process.pid}`);
rmSync(retired, { recursive: true, force: true });
try {
  renameSync(live, retired);
} catch (error) {
  if (error?.code !== "ENOENT") throw error;
}
renameSync(scratch, live);
rmSync(retired, { recursive: true, force: true });

const seconds = ((performance.now() - started) / 1000).toFixed(2);
process.stdout.write(
  `tca compile: ${typescript.length} modules compiled and ${copied.length} files copied into ${COMPILED_DIRECTORY}/ in ${seconds} s\n`,
);
