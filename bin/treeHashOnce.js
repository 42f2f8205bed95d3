// One SHA-256 pass over each tree per process. bin/tca.js hashes src/ and lib/ to decide whether
// lib/ is fresh; the run's evidence then needs the same digests again (runningCode's proof that
// lib/ is a build of src/, harnessHashes' src/ and bin/ files). Hashing each tree once and
// handing every caller the same digests costs one pass instead of five, and the evidence names
// exactly the bytes the start-up check judged. Only the checkout's own trees at start-up go
// through here; a check that must see later edits (a test editing a copy) calls hashTree itself.
// Plain JavaScript, like compiledBuild.js, because bin/tca.js loads it before any transpiler.
import { resolve } from "node:path";
import { hashTreeCached } from "./treeDigestCache.js";

/** "<absolute root>\0<directory>" → the frozen digests of that tree, as first read by this process. */
const digestsByTree = new Map();

/** hashTree(root, directory), computed on the first call for that tree and shared by every later one. */
export function hashTreeOnce(root, directory) {
  const key = `${resolve(root)}\0${directory}`;
  const known = digestsByTree.get(key);
  if (known !== undefined) return known;
  // A tree that cannot be read throws here and is not remembered: the next caller tries again.
  // hashTree's digests, read through the stat-validated cache (treeDigestCache.js).
  const digests = Object.freeze(hashTreeCached(root, directory));
  digestsByTree.set(key, digests);
  return digests;
}
