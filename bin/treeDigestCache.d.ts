// Types for bin/treeDigestCache.js (plain JavaScript, loaded by bin/tca.js before any transpiler).
export declare const DIGEST_CACHE_DIRECTORY: string;
export declare const DIGEST_CACHE_SCHEMA: string;
export declare const SETTLED_MS: number;
export declare function digestCachePath(root: string, directory: string): string;
export declare function hashTreeCached(root: string, directory: string, nowMs?: number): Record<string, string>;
