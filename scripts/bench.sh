#!/usr/bin/env bash
# Builds and runs the reader benchmarks (issue 2's performance targets);
# results and how to read them: docs/benchmarks.md. Arguments go to
# bench_reader, e.g. `scripts/bench.sh --only verify --verify-gib 4`.
# Needs ~2.5 GiB free in the scratch directory (--dir, default $TMPDIR).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake --preset dev -DCKPT_BUILD_BENCH=ON
fi
cmake --build build --parallel "$(nproc)" --target bench_reader ckpt
echo "bench.sh: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(date -u +%Y-%m-%dT%H:%MZ)"
exec build/bench/bench_reader "$@"
