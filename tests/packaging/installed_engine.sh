#!/usr/bin/env bash
# The installed engine, as a program built elsewhere sees it: installs this
# build into a scratch prefix (cmake --install), builds examples/embed there
# with find_package(CkptEngine) and nothing from the source or build tree,
# and runs it on a freshly trained checkpoint. Also checks the install
# layout: the SONAME, the headers a consumer needs, no internal header.
#   installed_engine.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1" src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
libdir="$(dirname "$(find "$prefix" -name 'libckpt-engine.so.0' | head -n1)")"
[ -n "$libdir" ] && [ "$libdir" != . ] || { echo "FAIL: no libckpt-engine.so.0 under $prefix"; exit 1; }
soname="$(objdump -p "$libdir/libckpt-engine.so.0" | awk '/SONAME/ {print $2}')"
[ "$soname" = libckpt-engine.so.0 ] || { echo "FAIL: SONAME is '$soname'"; exit 1; }
[ -L "$libdir/libckpt-engine.so" ] || { echo "FAIL: no development link libckpt-engine.so"; exit 1; }
for h in checkpoint.h display_tree.h bundle_reader.h status.h; do
  [ -f "$prefix/include/ckpt/$h" ] || { echo "FAIL: include/ckpt/$h is not installed"; exit 1; }
done
# The demo trainer and everything internal stay out of the installed API.
if [ -e "$prefix/include/ckpt/demo_trainer.h" ] || find "$prefix/include" -path '*format*' | grep -q .; then
  echo "FAIL: internal headers installed:"; find "$prefix/include"; exit 1
fi
# Installed headers compile on their own (each includes what it uses).
for h in "$prefix"/include/ckpt/*.h; do
  echo "#include <ckpt/$(basename "$h")>" >"$work/one.cpp"
  c++ -std=c++20 -fsyntax-only -I"$prefix/include" "$work/one.cpp" || { echo "FAIL: $h does not compile alone"; exit 1; }
done

cmake -S "$src/examples/embed" -B "$work/embed" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/embed" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
# Linked against the installed library, not the build tree's.
LD_LIBRARY_PATH="$libdir" ldd "$work/embed/print-tree" | grep -F "$libdir/libckpt-engine.so.0" \
  || { echo "FAIL: print-tree does not use $libdir"; ldd "$work/embed/print-tree"; exit 1; }

"$prefix/bin/ckpt" demo-train --steps 20 --save-every 20 "$work/run" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/embed/print-tree" "$work/run" >"$work/tree.txt"
cat "$work/tree.txt"
for want in "(root)" "layer_with_weights-0" "kernel" "optimizer" "save_counter"; do
  grep -qF -- "$want" "$work/tree.txt" || { echo "FAIL: '$want' missing from print-tree's output"; exit 1; }
done
LD_LIBRARY_PATH="$libdir" "$work/embed/print-tree" "$work/missing" 2>"$work/err.txt" && { echo "FAIL: a missing checkpoint succeeded"; exit 1; }
grep -q "missing" "$work/err.txt" || { echo "FAIL: the error does not name the path"; cat "$work/err.txt"; exit 1; }
echo "installed engine: find_package(CkptEngine) builds and runs examples/embed"
