#!/usr/bin/env bash
# Configures (once) and builds into ./build. CI (CI=true) uses the `ci`
# preset, which adds -Werror; set CKPT_PRESET to choose another.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${CKPT_PRESET:-$([ -n "${CI:-}" ] && echo ci || echo dev)}"
if [ ! -f build/build.ninja ]; then
  cmake --preset "$preset" "$@"
fi
cmake --build build --parallel "$(nproc)"
