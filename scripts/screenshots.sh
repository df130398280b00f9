#!/usr/bin/env bash
# Runs the real explorer under Xvfb and saves a PNG of each view to
# docs/screenshots/ (the README shows them). The app's --screenshot tour
# drives the window through open, inspect, filter, an error panel, the
# restore view, the compare view and History page on freshly generated
# demo checkpoints, then the Schedules tab (schedules run through Run now in
# a throwaway store), the schedule dialog, the retention preview and the
# global search over a scratch catalog of the directories it opened, and
# the Rename dialog's preview of the edited tree, then Help's Keyboard
# Shortcuts and About. Each grab warns when the window is not the size asked
# for (a view's minimum outgrew it).
# The tour runs four times: 1600x1000 and 1024x700, light and dark palettes.
# The 1600x1000 light set is kept whole in docs/screenshots/ (the README and
# the AppStream metadata use it); the others keep the views that show their
# layout best, in dark/, 1024x700/ and 1024x700/dark/.
#   scripts/screenshots.sh [BUILD_DIR] [CHECKPOINT] [NAME_BASED_CHECKPOINT]
#   SCREENSHOTS_ALL=DIR scripts/screenshots.sh   # every view of every set into DIR, docs/ untouched
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
corpus="${CKPT_TESTDATA_REAL:-$here/../shared/testdata/real}"
ckpt="${2:-$corpus/tfx_keras_adam_savedmodel}"
tf1="${3:-$corpus/t2t_transformer_2shards}"
docs="$here/docs/screenshots"
all="${SCREENSHOTS_ALL:-}"
# What the smaller and dark sets keep: browse, inspect, previews, compare,
# history, schedules and search.
subset=(02-object-graph 03-inspector 09-heatmap 11-compare 13-history 14-schedules 17-search)
# A throwaway settings location so the tour neither reads nor changes the
# user's recent files and window layout, nor their schedules.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

tour() {  # SIZE PALETTE OUT_DIR
  rm -rf "$scratch/config" && mkdir -p "$scratch/config" "$3"
  XDG_CONFIG_HOME="$scratch/config" xvfb-run -a -s "-screen 0 1700x1050x24 -dpi 96" \
    "$build/app/gui/ckpt-explorer" --screenshot "$3" --size "$1" --palette "$2" \
      --schedule-store "$scratch/config/schedules.db" "$ckpt" "$tf1"
}

for set in "1600x1000 light ." "1600x1000 dark dark" "1024x700 light 1024x700" "1024x700 dark 1024x700/dark"; do
  read -r size palette folder <<<"$set"
  if [[ -n "$all" ]]; then
    tour "$size" "$palette" "$all/$folder"
  elif [[ "$folder" == . ]]; then
    tour "$size" "$palette" "$docs"
  else
    tour "$size" "$palette" "$scratch/shots"
    rm -rf "${docs:?}/$folder" && mkdir -p "$docs/$folder"
    for name in "${subset[@]}"; do cp "$scratch/shots/$name.png" "$docs/$folder/"; done
    rm -rf "$scratch/shots"
  fi
done
find "${all:-$docs}" -name '*.png' | sort
