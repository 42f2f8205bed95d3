// The build stamp: what `npm run prepare` (scripts/compile.mjs) compiled into lib/, and whether
// that still matches src/. bin/tca.js runs lib/ only when this says it is fresh, because lib/ is
// a copy: an edited, added or removed src file, or a changed compile recipe, must never run as
// the old code. Freshness is decided by SHA-256 of every src file (not mtimes alone, which a
// copy, an editor or a checkout can leave unchanged), and lib/ is hashed against the stamp the
// same way. bin/tca.js reads those digests through bin/treeDigestCache.js, which re-hashes a file
// whenever its inode, size, mtime or ctime moved (a copy or checkout makes a new ctime), so
// start-up stats the ~740 files instead of reading them (#36).
// Plain JavaScript, because it runs before any transpiler is loaded (and in the compile step).
import { hash as oneShotHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The compiled tree: a sibling of src/, so `new URL("../../x", import.meta.url)` reaches the same root-level files. */
export const COMPILED_DIRECTORY = "lib";
/** Written last by the compile, inside lib/. */
export const STAMP_NAME = ".build-stamp.json";
export const STAMP_SCHEMA = "tca.build-stamp/1";
/** The compile recipe: lib/ built by another version of it is not fresh either. */
export const COMPILE_SCRIPT = "scripts/compile.mjs";

/**
 * Installed packages the compile bundles into one file each, lib/_bundled/<name>.js, imported by
 * lib/ in place of the package: typebox is 373 small ES modules whose resolution alone costs
 * about 0.2 s of CPU at every start, as one file about 10 ms; ajv's 80 CommonJS files about 50 ms;
 * diff's 19 ES modules, which every Lab report's edit diffs load, about 10 ms, as one file 5 ms;
 * commander's CommonJS files, which every command loads, about 11 ms, as one file 8 ms.
 * The stamp records each package's package.json digest, and a build whose bundled package is no
 * longer the installed one is stale.
 */
export const BUNDLED_PACKAGES = ["typebox", "ajv", "diff", "commander"];
export const BUNDLED_DIRECTORY = "_bundled";

/**
 * The command itself as one ES module (plus one chunk per lazily imported subcommand and the
 * code those chunks share), lib/_cli/main.js, made by the compile from the per-file build: what
 * bin/tca.js runs. Each of the hundred-odd modules a command loads cost about 0.4 ms of CPU to
 * resolve, link and evaluate as a file of its own (a Lab run's 93: 60 ms over a bare node start,
 * as one bundle 21 ms; #36). Every module keeps the import.meta.url it has in lib/ (the compile
 * maps it), so files read relative to a module, the worker, createRequire and runningCode see
 * the same paths as in the per-file build, which the tests and workers still import.
 */
export const CLI_BUNDLE_DIRECTORY = "_cli";

/** The package.json node would find for `name` from root (root/node_modules, then each parent's), or null. */
export function installedPackageJson(root, name) {
  for (let directory = root; ; directory = dirname(directory)) {
    try {
      return readFileSync(join(directory, "node_modules", name, "package.json"));
    } catch {
      if (dirname(directory) === directory) return null;
    }
  }
}

export function sha256Hex(bytes) {
  return oneShotHash("sha256", bytes, "hex");
}

/** Every file under root/directory as sorted root-relative "/"-separated paths (no links, no special files). */
export function listFiles(root, directory) {
  const found = [];
  // Paths joined by hand, not path.join: every part is a name readdir gave, so there is nothing to
  // normalise, and this runs for every file of src/ and lib/ at each start (#36).
  const visit = (relativeDirectory) => {
    for (const entry of readdirSync(`${root}/${relativeDirectory}`, { withFileTypes: true })) {
      const relativePath = `${relativeDirectory}/${entry.name}`;
      if (entry.isDirectory()) visit(relativePath);
      else if (entry.isFile()) found.push(relativePath);
    }
  };
  visit(directory);
  return found.sort();
}

/** "<directory>/…" → sha256 of every file under it. */
export function hashTree(root, directory) {
  const hashes = {};
  for (const path of listFiles(root, directory)) hashes[path] = sha256Hex(readFileSync(`${root}/${path}`));
  return hashes;
}

/** "src/…" → sha256 of every source file: the keys and digests runtimeIdentity's harnessHashes() uses. */
export function hashSourceTree(root) {
  return hashTree(root, "src");
}

/** Whether `recorded` (anything read from a stamp) lists exactly the names and digests of `current`. */
export function sameDigests(recorded, current) {
  if (recorded === null || typeof recorded !== "object") return false;
  const names = Object.keys(current);
  if (Object.keys(recorded).length !== names.length) return false;
  return names.every((name) => recorded[name] === current[name]);
}

/**
 * { fresh: true } when root/lib holds exactly what the compile wrote from exactly the current
 * root/src with the current compile script; otherwise { fresh: false, reason }. `hash` hashes a
 * tree: bin/tca.js passes treeHashOnce.js's memo so the run's evidence reuses these digests.
 */
export function compiledBuildStatus(root, hash = hashTree) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, COMPILED_DIRECTORY, STAMP_NAME), "utf8"));
  } catch {
    return { fresh: false, reason: `no build in ${COMPILED_DIRECTORY}/ (npm run prepare builds it)` };
  }
  if (
    stamp === null ||
    typeof stamp !== "object" ||
    stamp.schema !== STAMP_SCHEMA ||
    typeof stamp.sources !== "object" ||
    stamp.sources === null
  ) {
    return { fresh: false, reason: `${COMPILED_DIRECTORY}/${STAMP_NAME} is not a ${STAMP_SCHEMA} stamp` };
  }
  let recipe;
  try {
    recipe = sha256Hex(readFileSync(join(root, COMPILE_SCRIPT)));
  } catch {
    return { fresh: false, reason: `${COMPILE_SCRIPT} is missing` };
  }
  if (stamp.compiler?.script_sha256 !== recipe)
    return { fresh: false, reason: `${COMPILE_SCRIPT} changed since the build` };
  for (const name of BUNDLED_PACKAGES) {
    const installed = installedPackageJson(root, name);
    if (installed === null || stamp.bundled?.[name]?.package_json_sha256 !== sha256Hex(installed))
      return { fresh: false, reason: `the installed ${name} package changed since the build` };
  }
  let sources;
  try {
    sources = hash(root, "src");
  } catch {
    return { fresh: false, reason: "src/ could not be read" };
  }
  if (!sameDigests(stamp.sources, sources)) return { fresh: false, reason: "src/ changed since the build" };
  // lib/ itself is checked too (another ~5 ms): a half-deleted or hand-edited build is not the
  // code the stamp vouches for.
  let outputs;
  try {
    outputs = { ...hash(root, COMPILED_DIRECTORY) };
  } catch {
    return { fresh: false, reason: `${COMPILED_DIRECTORY}/ could not be read` };
  }
  delete outputs[`${COMPILED_DIRECTORY}/${STAMP_NAME}`];
  if (!sameDigests(stamp.outputs, outputs)) {
    return { fresh: false, reason: `${COMPILED_DIRECTORY}/ changed since the build` };
  }
  return { fresh: true };
}
