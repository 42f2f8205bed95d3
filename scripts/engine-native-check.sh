#!/usr/bin/env bash
# Not part of npm test or CI (issue 18): builds llama.cpp natively from the source bundled in
# node-llama-cpp (offline; about 10 minutes on 2 idle cores, needs cmake and a C/C++ compiler),
# verifies the build, then runs the engine tests against the native binary only
# (TCA_ENGINE_BINARY=native: a missing or unverified build fails instead of falling back).
# CI keeps testing the prebuilt binary; run this after upgrading node-llama-cpp or the compiler.
#   scripts/engine-native-check.sh [--force]   (--force recompiles even when a build exists)
set -euo pipefail
cd "$(dirname "$0")/.."
node bin/tca.js engine build "$@"
TCA_ENGINE_BINARY=native node bin/tca.js engine info
TCA_ENGINE_BINARY=native node --import tsx --test test/engine/*.test.ts
