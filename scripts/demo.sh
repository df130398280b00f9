#!/usr/bin/env bash
# The main job on its embedded default: installs what is missing, builds,
# trains the demo model in plain C++ (saving TensorFlow-compatible
# checkpoints with Adam slot variables through the checkpoint manager) and
# opens them in the explorer. Without a display it stays headless and shows
# the same checkpoints with the CLI. With an argument, shows that
# checkpoint (prefix, directory or SavedModel) instead of training.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The whole project is configured (a missing dependency shows here); only
# the two programs the job runs are built.
bash scripts/build.sh ckpt ckpt-explorer
target="${1:-}"
if [ -z "$target" ]; then
  target="$PWD/build/demo-run"
  rm -rf "$target"
  ./build/app/cli/ckpt demo-train "$target" --steps 200 --save-every 40 --max-to-keep 5
  echo
  ./build/app/cli/ckpt list "$target"
  echo
fi
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/gui/ckpt-explorer ]; then
  echo "Opening $target in ckpt-explorer"
  exec ./build/app/gui/ckpt-explorer "$target"
fi
echo "(no display: showing the checkpoint with the CLI; run build/app/gui/ckpt-explorer $target on a desktop)"
echo
./build/app/cli/ckpt tree "$target"
echo
./build/app/cli/ckpt verify "$target"
if [ -z "${1:-}" ]; then
  # What the fine-tune changed: layer 1 moves, the frozen layer 0 does not
  # (`ckpt diff` exits 1 when the checkpoints differ: that is the point here).
  echo
  ./build/app/cli/ckpt diff "$target/ckpt-4" "$target/ckpt-5" --weights-only || [ $? -eq 1 ]
  echo
  ./build/app/cli/ckpt history "$target" --weights-only --top 3 | sed -n '1,8p'
  # What a retention policy would keep of this run, and why (a dry run:
  # nothing is deleted; the demo's checkpoints are owned by ckpt@<dir>).
  echo
  ./build/app/cli/ckpt retention plan "$target" --owner "ckpt@$target" --keep-latest 2 --keep-best loss
fi
