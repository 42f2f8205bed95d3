// Types for bin/treeHashOnce.js (plain JavaScript, loaded by bin/tca.js before any transpiler).
export declare function hashTreeOnce(root: string, directory: string): Readonly<Record<string, string>>;
