#!/usr/bin/env bash
# Configures (once) and builds into ./build. Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake --preset dev "$@"
fi
cmake --build build --parallel "$(nproc)"
