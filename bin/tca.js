#!/usr/bin/env node
// The `tca` command. The project runs its TypeScript sources through tsx (a runtime
// dependency), so this file works right after `npm install` with no build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
