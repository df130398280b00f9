#!/usr/bin/env bash
# Configures (once) and builds into ./build: every target, or the targets
# named as arguments (scripts/build.sh ckpt ckpt-explorer). CI (CI=true)
# uses the `ci` preset, which adds -Werror; set CKPT_PRESET to choose another.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${CKPT_PRESET:-$([ -n "${CI:-}" ] && echo ci || echo dev)}"
if [ ! -f build/build.ninja ]; then
  cmake --preset "$preset"
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build --parallel "$(nproc)" "${targets[@]}"
