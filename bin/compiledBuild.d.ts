// Types for bin/compiledBuild.js (plain JavaScript, because bin/tca.js loads it before any
// transpiler), for the TypeScript tests and benches that use it.
export declare const COMPILED_DIRECTORY: "lib";
export declare const STAMP_NAME: ".build-stamp.json";
export declare const STAMP_SCHEMA: "tca.build-stamp/1";
export declare const COMPILE_SCRIPT: "scripts/compile.mjs";
export declare const BUNDLED_PACKAGES: readonly string[];
export declare const BUNDLED_DIRECTORY: "_bundled";
export declare function installedPackageJson(root: string, name: string): Buffer | null;
export declare function sha256Hex(bytes: string | Uint8Array): string;
export declare function listFiles(root: string, directory: string): string[];
export declare function hashTree(root: string, directory: string): Record<string, string>;
export declare function hashSourceTree(root: string): Record<string, string>;
export declare function sameDigests(recorded: unknown, current: Readonly<Record<string, string>>): boolean;
export declare function compiledBuildStatus(
  root: string,
  hash?: (root: string, directory: string) => Readonly<Record<string, string>>,
): { readonly fresh: true } | { readonly fresh: false; readonly reason: string };
