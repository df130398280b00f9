#!/usr/bin/env bash
# The main job on its embedded default: installs what is missing, builds,
# trains the demo model in plain C++ (saving TensorFlow-compatible
# checkpoints through the manager) and shows the result with the CLI.
# With an argument, shows that checkpoint instead of training.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
sample="${1:-}"
if [ -z "$sample" ]; then
  sample="$PWD/build/demo-run"
  rm -rf "$sample"
  ./build/app/cli/ckpt demo-train "$sample" --steps 200 --save-every 50 --max-to-keep 3
  echo
  ./build/app/cli/ckpt list "$sample"
  echo
fi
./build/app/cli/ckpt inspect "$sample"
echo
./build/app/cli/ckpt tree "$sample"
echo
./build/app/cli/ckpt verify "$sample"
