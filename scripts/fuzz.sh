#!/usr/bin/env bash
# Bounded fuzzing: builds the libFuzzer harnesses (tests/fuzz, clang with
# ASan + UBSan), writes their seed corpora with the engine (fuzz_seeds), runs
# each harness for SECONDS (default 30) and exits 1 if any found a crash, a
# sanitizer report, a leak, a timeout or an out-of-memory, naming the input
# that did it. Save such an input under tests/fuzz/regressions/<harness>/:
# CTest then replays it in every build (tst_fuzz_replay_<harness>).
#   scripts/fuzz.sh [SECONDS]
#   CKPT_FUZZ_PRESET=dev-asan scripts/fuzz.sh   # reuse build-asan (scripts/test-asan.sh's)
# Corpora grow in <build>/fuzz/corpus/<harness> from run to run; crash
# inputs land in <build>/fuzz/crashes/<harness>/, logs in <build>/fuzz/*.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
preset="${CKPT_FUZZ_PRESET:-fuzz}"
case "$preset" in
  fuzz) build=build-fuzz ;;
  dev-asan) build=build-asan ;;
  *) echo "fuzz.sh: CKPT_FUZZ_PRESET must be fuzz or dev-asan, not $preset" >&2; exit 2 ;;
esac
# The harness list has one home, tests/fuzz/CMakeLists.txt.
read -r -a harnesses < <(sed -n 's/^set(CKPT_FUZZ_HARNESSES \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)
[ "${#harnesses[@]}" -gt 0 ] || { echo "fuzz.sh: no CKPT_FUZZ_HARNESSES in tests/fuzz/CMakeLists.txt" >&2; exit 1; }

bash scripts/install-deps.sh
if [ ! -f "$build/build.ninja" ]; then
  cmake --preset "$preset"
fi
cmake --build "$build" --parallel "$(nproc)" --target fuzzers

work="$PWD/$build/fuzz"
rm -rf "$work/seeds" "$work/crashes"
mkdir -p "$work"
# Harnesses rewrite files for every input: in memory where there is /dev/shm.
scratch="$(mktemp -d "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/ckpt-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export CKPT_FUZZ_SCRATCH="$scratch"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
"$build/tests/fuzz/fuzz_seeds" "$work/seeds"

failed=()
for name in "${harnesses[@]}"; do
  corpus="$work/corpus/$name"
  crashes="$work/crashes/$name"
  log="$work/$name.log"
  mkdir -p "$corpus" "$crashes"
  # -malloc_limit_mb: no input of a few KiB may make the engine ask for a
  # GiB; -timeout: none may take 10 s.
  if "$build/tests/fuzz/fuzz_$name" "$corpus" "$work/seeds/$name" -max_total_time="$seconds" \
      -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$crashes/" >"$log" 2>&1; then
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
    echo "fuzz: $name: $runs inputs in ${seconds} s ($rate exec/s), corpus $(find "$corpus" -type f | wc -l) files"
  else
    echo "fuzz: $name FAILED (log $log):"
    grep -E '^==[0-9]+==ERROR|runtime error|^SUMMARY|property broken|out-of-memory|timeout after' "$log" | head -5 | sed 's/^/  /'
    for input in "$crashes"/*; do
      [ -f "$input" ] && echo "  input: $input"
    done
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} harness(es) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#harnesses[@]} harnesses clean for ${seconds} s each"
