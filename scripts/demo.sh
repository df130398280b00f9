#!/usr/bin/env bash
# The main job on its embedded default: installs what is missing, builds,
# then shows a checkpoint with the CLI. (The demo trainer and the GUI take
# over this script as they land.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
sample="${1:-}"
if [ -z "$sample" ]; then
  sample="$(cd .. && pwd)/shared/testdata/real/tfx_tuner_save_weights"
fi
./build/app/cli/ckpt inspect "$sample"
echo
./build/app/cli/ckpt tree "$sample"
echo
./build/app/cli/ckpt verify "$sample"
