#!/usr/bin/env node
// Opt-in GPU binaries. By default package.json's "overrides" point node-llama-cpp's CUDA and
// Vulkan binary packages (about 620 MB on linux-x64) at its riscv64 CPU package, which npm
// skips on x64 (its "cpu" field does not match): a default `npm ci` installs the CPU engine only,
// which is all this project uses. This script removes those overrides and their lockfile entries
// from YOUR checkout and runs `npm install`, which brings the real GPU packages back.
// It changes package.json and package-lock.json (do not commit them); undo with
// `git checkout package.json package-lock.json && npm ci`. Extra arguments go to npm install.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const GPU_PACKAGES = [
  "@node-llama-cpp/linux-x64-cuda",
  "@node-llama-cpp/linux-x64-cuda-ext",
  "@node-llama-cpp/linux-x64-vulkan",
];

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
for (const name of GPU_PACKAGES) delete pkg.overrides?.[name];
if (pkg.overrides !== undefined && Object.keys(pkg.overrides).length === 0) delete pkg.overrides;
writeFileSync("package.json", `${JSON.stringify(pkg, null, 2)}\n`);

const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
for (const name of GPU_PACKAGES) delete lock.packages[`node_modules/${name}`];
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);

execFileSync("npm", ["install", "--no-audit", "--no-fund", ...process.argv.slice(2)], { stdio: "inherit" });
