#!/usr/bin/env bash
# Style and static checks CI runs after the test suite (needs ./build's
# compile_commands.json): clang-format on every C++ file (.clang-format),
# then clang-tidy's curated checks (.clang-tidy) on the engine, the apps and
# the UI (each source once until it or a header it includes changes). Prints
# each finding; exit 1 if there is any.
#   scripts/lint.sh           # check
#   scripts/lint.sh --fix     # rewrite files with clang-format instead
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t cxx < <(git ls-files '*.cpp' '*.h' '*.cu')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${cxx[@]}"
  exit 0
fi
status=0
if ! clang-format --dry-run --Werror "${cxx[@]}" 2>/tmp/ckpt-format.$$; then
  grep -E "^[^ ].*: (error|warning):" /tmp/ckpt-format.$$ | sed 's/^/lint: /' | head -50
  echo "lint: clang-format: $(grep -cE ': (error|warning):' /tmp/ckpt-format.$$) place(s) differ from .clang-format (scripts/lint.sh --fix rewrites them)"
  status=1
fi
rm -f /tmp/ckpt-format.$$
if [ ! -f build/compile_commands.json ]; then
  echo "lint: no build/compile_commands.json; build first (scripts/build.sh)" >&2
  exit 2
fi
# CUDA sources are compiled by nvcc, which clang-tidy cannot stand in for.
mapfile -t sources < <(git ls-files 'engine/*.cpp' 'app/*.cpp' 'ui/*.cpp' | grep -v '/cuda/')
# Sources unchanged since a clean check (with every header they include) are
# not checked again: scripts/tidy_cached.py keeps that record.
tidy_rc=0
findings="$(python3 scripts/tidy_cached.py build "${sources[@]}")" || tidy_rc=$?
if [ "$tidy_rc" -ne 0 ] && [ -z "$findings" ]; then
  echo "lint: clang-tidy did not run to the end (scripts/tidy_cached.py exit $tidy_rc)"
  status=1
elif [ -n "$findings" ]; then
  echo "$findings" | sed 's/^/lint: /'
  echo "lint: clang-tidy: $(echo "$findings" | wc -l) finding(s)"
  status=1
fi
[ "$status" -eq 0 ] && echo "lint: clang-format and clang-tidy clean (${#cxx[@]} files formatted, ${#sources[@]} checked)"
exit "$status"
