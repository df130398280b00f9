#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs CTest.
# Real checkpoints come from ../shared/testdata/real (override with CKPT_TESTDATA_REAL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/setup-venv.sh
bash scripts/build.sh
export CKPT_TESTDATA_REAL="${CKPT_TESTDATA_REAL:-$(cd .. && pwd)/shared/testdata/real}"
if [ ! -d "$CKPT_TESTDATA_REAL" ]; then
  echo "test.sh: real corpus not found at $CKPT_TESTDATA_REAL; those tests will skip" >&2
fi
export CKPT_PYTHON="$PWD/.venv/bin/python"
ctest --test-dir build --output-on-failure --parallel "$(nproc)" --timeout 900
