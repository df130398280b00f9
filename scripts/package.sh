#!/usr/bin/env bash
# Builds the release packages from ./build (scripts/build.sh first) into
# build/packages/: libckpt-engine0, libckpt-engine-dev, ckpt and
# ckpt-explorer .deb files plus one .tar.gz of the whole install tree
# (cmake/CkptInstall.cmake), then checks the .deb files with lintian: an
# error fails, warnings are listed. scripts/check-fresh-root.sh installs
# them into a clean Debian 12 root when CKPT_PACKAGES_DIR names this folder.
#   scripts/package.sh            (CI runs it after the test suite)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
rm -rf build/packages
# Stripping and dpkg-shlibdeps need no network; CPack prints one line a package.
(cd build && cpack -G "DEB;TGZ")
ls -l build/packages/*.deb build/packages/*.tar.gz
for deb in build/packages/*.deb; do
  echo "== $(basename "$deb")"
  dpkg-deb --field "$deb" Package Version Section Depends
done
# --fail-on error: errors fail the build; warnings and notes are printed.
lintian --allow-root --fail-on error --display-info --tag-display-limit 0 build/packages/*.deb
echo "package: lintian found no errors in $(ls build/packages/*.deb | wc -l) packages"
