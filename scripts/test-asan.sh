#!/usr/bin/env bash
# The test suite under AddressSanitizer, LeakSanitizer and UBSan (clang, the
# dev-asan preset, ./build-asan): any memory error, leak or undefined
# behaviour fails its test. The interop suites are left out (label
# `interop`): they drive TensorFlow in Python around our CLI, which the
# normal run already covers; `cuda` ones too (no device code under ASan).
#   scripts/test-asan.sh              # every other label: engine, cli, fuzz replays, ui
#   scripts/test-asan.sh -L engine    # extra arguments go to ctest
# Also builds the fuzz harnesses (same build directory), so a following
# `CKPT_FUZZ_PRESET=dev-asan scripts/fuzz.sh` builds nothing more.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if [ ! -f build-asan/build.ninja ]; then
  cmake --preset dev-asan
fi
# Only what the selected tests run (each test is its own executable; the
# fuzz replays are replay_<harness>), plus the fuzz harnesses.
# Tests that are scripts rather than executables (the docs' commands) run
# the programs: ckpt is always built.
select=(-LE 'interop|cuda' "$@")
targets=(--target fuzzers --target ckpt)
known="$(cmake --build build-asan --target help | sed -n 's/^\([A-Za-z0-9_.-]*\):.*/\1/p')"
while read -r name; do
  case "$name" in
    tst_fuzz_replay_*) name="replay_${name#tst_fuzz_replay_}" ;;
  esac
  if grep -qx -- "$name" <<<"$known"; then targets+=(--target "$name"); fi
done < <(ctest --test-dir build-asan -N "${select[@]}" | sed -n 's/^ *Test *#[0-9]*: //p')
cmake --build build-asan --parallel "$(nproc)" "${targets[@]}"
export CKPT_TESTDATA_REAL="${CKPT_TESTDATA_REAL:-$(cd .. && pwd)/shared/testdata/real}"
# The numpy oracles (tst_preview, ...) use scripts/test.sh's venv.
export CKPT_PYTHON="${CKPT_PYTHON:-$PWD/.venv/bin/python}"
# Leaks are errors (LeakSanitizer runs at each test's exit); suppressions
# only for third-party libraries (tests/sanitizers/lsan.supp says why).
export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-asan --output-on-failure --parallel "$(nproc)" --timeout 900 "${select[@]}"
