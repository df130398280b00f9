#!/usr/bin/env bash
# Installs the Debian 12 packages ckpt-explorer builds and tests with.
# Idempotent: does nothing (and needs no network) when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  qt6-base-dev qt6-charts-dev libgl-dev
  libprotobuf-dev protobuf-compiler
  libleveldb-dev libsnappy-dev
  libsqlite3-dev libcli11-dev nlohmann-json3-dev libpng-dev
  python3 python3-venv python3-pip
  xvfb xauth imagemagick
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
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
