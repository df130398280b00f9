#!/usr/bin/env bash
# Runs the real explorer under Xvfb and saves a PNG of each view to
# docs/screenshots/ (the README shows them). The app's --screenshot tour
# drives the window through open, inspect, filter, an error panel, the
# restore view, the compare view and History page on freshly generated
# demo checkpoints, then the Schedules tab (schedules run through Run now in
# a throwaway store), the schedule dialog, the retention preview and the
# global search over a scratch catalog of the directories it opened, and
# the Rename dialog's preview of the edited tree.
#   scripts/screenshots.sh [BUILD_DIR] [CHECKPOINT] [NAME_BASED_CHECKPOINT]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
corpus="${CKPT_TESTDATA_REAL:-$here/../shared/testdata/real}"
ckpt="${2:-$corpus/tfx_keras_adam_savedmodel}"
tf1="${3:-$corpus/t2t_transformer_2shards}"
out="$here/docs/screenshots"
mkdir -p "$out"
# A throwaway settings location so the tour neither reads nor changes the
# user's recent files and window layout, nor their schedules.
export XDG_CONFIG_HOME="$(mktemp -d)"
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
xvfb-run -a -s "-screen 0 1700x1050x24 -dpi 96" \
  "$build/app/gui/ckpt-explorer" --screenshot "$out" --schedule-store "$XDG_CONFIG_HOME/schedules.db" "$ckpt" "$tf1"
ls -1 "$out"/*.png
