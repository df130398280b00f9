#!/usr/bin/env bash
# Renders the app icon's PNG sizes (resources/icons/<size>/) from its SVG.
# The PNGs are committed, so building needs no SVG renderer; rerun this after
# editing the SVG. Needs rsvg-convert (librsvg2-bin, in install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/../resources/icons"
svg=io.github.ckpt_explorer.CkptExplorer.svg
for size in 16 22 24 32 48 64 128 256; do
  mkdir -p "${size}"
  rsvg-convert --width "${size}" --height "${size}" "${svg}" --output "${size}/${svg%.svg}.png"
done
echo "render-icons: $(ls -d [0-9]* | tr '\n' ' ')"
