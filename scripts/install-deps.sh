#!/usr/bin/env bash
# Installs the Debian 12 packages ckpt-explorer builds, tests and runs with.
# Every package is named explicitly (apt runs without recommends), so a fresh
# minimal Debian 12 gets everything; scripts/check-fresh-root.sh proves it.
# Idempotent: does nothing (and needs no network) when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  ccache  # unchanged sources are not compiled again (cmake/CkptCcache.cmake)
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev
  libprotobuf-dev protobuf-compiler
  libleveldb-dev libsnappy-dev
  libsqlite3-dev libcli11-dev nlohmann-json3-dev libpng-dev libzip-dev
  libcurl4-openssl-dev libssl-dev libexpat1-dev  # the object-store backend: HTTP, SigV4, S3's XML
  curl  # bench_remote's baseline: curl's own single-stream GET
  python3 python3-venv python3-pip python3-dev  # python3-dev: headers for the ckpt Python package (python/)
  xvfb xauth imagemagick
  clang-format clang-tidy
  lintian  # checks the .deb files (package.sh)
  desktop-file-utils appstream man-db  # packaging checks: validators, man -l (tst_desktop_files, tst_cli_docs)
  librsvg2-bin  # rsvg-convert: scripts/render-icons.sh renders the icon's PNG sizes
  clang libclang-rt-14-dev  # sanitizer runtimes and libFuzzer (test-asan.sh, fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Bounded network steps: a mirror that does not answer fails, never hangs.
net=(-o Acquire::http::Timeout=30 -o Acquire::https::Timeout=30 -o Acquire::Retries=3)
$SUDO apt-get "${net[@]}" update -qq
$SUDO apt-get "${net[@]}" install -y -qq --no-install-recommends "${missing[@]}"
