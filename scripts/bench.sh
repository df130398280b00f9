#!/usr/bin/env bash
# Builds and runs the benchmarks behind the issues' performance targets.
# Results and how to read them: docs/benchmarks.md. Each benchmark measures
# its baseline (cat, dd, a plain sum, numpy, TensorFlow) in the same run and
# reports ratios; none of them gates CI.
#   scripts/bench.sh                 # all of them
#   scripts/bench.sh reader [ARGS]   # one, with its own arguments:
#     reader  (bench_reader: listing 100k tensors; verify vs cat on 2 GiB)
#     save    (bench_save vs dd; 4 vs 1 shard; async blocking; then numpy/TF)
#     preview (bench_preview: stats+histogram vs a plain sum; heatmap time)
#     restore (bench_restore: matching 100k nodes in process; restore vs cat;
#              bench_restore_cli: `ckpt restore --match-only` of 100k
#              variables into their spec as whole processes)
#     compare (bench_compare: identical 100k-tensor diff; 2 GiB diff and
#              history of 10 x 256 MiB vs cat; --quick for a smoke run)
#     schedule (bench_schedule: ScheduledCheckpointer vs plain manager saves
#              on a ~1 ms-step loop saving every 100 steps; --async)
#     retention (bench_retention: planning 10,000 checkpoints vs listing them)
#     export  (bench_export: export of 2 GiB to safetensors and npz, bit-exact
#              check included, vs dd conv=fsync; --mib N for a smaller run)
#     catalog (bench_catalog: scans of 1,000 checkpoints x 1,000 tensors,
#              search over their rows; --checkpoints N --tensors N --only runs|distinct)
#     remote  (bench_remote: listing, one tensor, verify vs curl, diff and
#              faults on s3:// against the loopback SeaweedFS it starts;
#              --gib N --tensors N --repeat N)
#     writers (bench_writers: 4 writer processes x 256 MiB vs one writer
#              saving 1 GiB, in a directory and on the loopback SeaweedFS it
#              starts; --mib N --world N --repeat N)
#     remote-save (bench_remote_save: a 1 GiB save to s3:// vs curl's single
#              PUT of the same data file, every object sha256-equal to a local
#              save; against the loopback SeaweedFS it starts; --mib N --repeat N)
#     surgery (bench_surgery: averaging K=5 checkpoints of 1 GiB vs cat of
#              the inputs; --k N --mib N --tensors N --repeat N --method mean|ema)
#     scale   (bench_scale: per-tensor cost of list, verify, diff, history and
#              the catalog from 10k to 1M tiny tensors; a ~1 TB checkpoint of
#              1M tensors in sparse files; --only tiny|terabyte, --read-all)
#     open-stall (bench_open_stall: the explorer's window opening, expanding,
#              filtering and comparing 10k to 1M tensors, name-based ~1 TB
#              sparse and object-based: first paint, longest event-loop stall,
#              peak RSS; --counts N,N --kinds name,object --repeat N --screenshot F)
#     limits  (the machine's physical limits beside the figures: page-cache
#              read, crc32c per core and on all cores, memcpy, fsync'd write)
#     ab BASELINE [--rounds N] [--mib N]
#             (bench/bench_ab.py: save, verify and restore of this tree against
#              a baseline build's binaries, alternated; docs/benchmarks.md,
#              "Storage layer: before and after")
# Scratch space (~2.5 GiB free; surgery ~6 GiB, or less by --mib) comes from $TMPDIR (default /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  cmake --preset dev -DCKPT_BUILD_BENCH=ON
fi
which="${1:-all}"
[ $# -gt 0 ] && shift
scratch="${TMPDIR:-/tmp}"
echo "bench.sh: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(date -u +%Y-%m-%dT%H:%MZ)"
# An object-storage benchmark against a loopback SeaweedFS of its own,
# stopped whatever the benchmark's exit status.
with_s3_server() {
  local bench="$1"; shift
  cmake --build build --target "$bench" >/dev/null
  bash scripts/s3-server.sh start build/s3-bench >/dev/null
  local status=0
  "build/bench/$bench" --state build/s3-bench --dir "$scratch/ckpt-$bench" "$@" || status=$?
  bash scripts/s3-server.sh stop build/s3-bench >/dev/null
  return $status
}
run() {
  local name="$1"; shift
  case "$name" in
    reader)
      cmake --build build --target bench_reader ckpt >/dev/null
      build/bench/bench_reader "$@" ;;
    save)
      cmake --build build --target bench_save >/dev/null
      build/bench/bench_save "$scratch" "$@"
      if [ -x .venv/bin/python ]; then .venv/bin/python bench/bench_python.py "$scratch" "$@"; fi ;;
    preview)
      cmake --build build --target bench_preview >/dev/null
      build/bench/bench_preview "$@" ;;
    restore)
      cmake --build build --target bench_restore bench_restore_cli >/dev/null
      build/bench/restore/bench_restore "$@"
      build/bench/restore/bench_restore_cli "$scratch" ;;
    compare)
      cmake --build build --target bench_compare >/dev/null
      build/bench/bench_compare "$@" ;;
    schedule)
      cmake --build build --target bench_schedule >/dev/null
      build/bench/bench_schedule "$scratch" "$@" ;;
    retention)
      cmake --build build --target bench_retention >/dev/null
      build/bench/bench_retention "$scratch" "$@" ;;
    remote|remote-save)
      with_s3_server "bench_${name//-/_}" "$@" ;;
    writers)
      cmake --build build --target bench_writers >/dev/null
      bash scripts/s3-server.sh start build/s3-bench >/dev/null
      status=0
      build/bench/bench_writers "$scratch/ckpt-bench-writers" "$@" || status=$?
      (set -a; . build/s3-bench/env; set +a; build/bench/bench_writers s3://ckpt-test/bench-writers "$@") || status=$?
      bash scripts/s3-server.sh stop build/s3-bench >/dev/null
      return $status ;;
    export)
      cmake --build build --target bench_export >/dev/null
      build/bench/bench_export "$scratch" "$@" ;;
    catalog)
      cmake --build build --target bench_catalog >/dev/null
      build/bench/bench_catalog "$scratch" "$@" ;;
    surgery)
      cmake --build build --target bench_surgery >/dev/null
      build/bench/bench_surgery "$scratch" "$@" ;;
    scale)
      cmake --build build --target bench_scale >/dev/null
      build/bench/bench_scale "$@" ;;
    open-stall)
      cmake --build build --target bench_open_stall >/dev/null
      build/bench/bench_open_stall --dir "$scratch/ckpt-bench-open-stall" "$@" ;;
    limits)
      cmake --build build --target bench_limits >/dev/null
      build/bench/bench_limits "$scratch" "$@" ;;
    ab)
      cmake --build build --target bench_save bench_reader bench_restore ckpt >/dev/null
      base="${1:?usage: scripts/bench.sh ab BASELINE [--rounds N] [--mib N]}"; shift
      python3 bench/bench_ab.py "$base" build "$scratch/ckpt-bench-ab" "$@" ;;
    *) echo "bench.sh: unknown benchmark '$name' (limits, reader, save, preview, restore, compare, retention, schedule, catalog, surgery, export, remote, remote-save, writers, scale, open-stall, ab BASELINE, all)" >&2; exit 2 ;;
  esac
}
if [ "$which" = all ]; then
  for b in limits reader save preview restore compare retention schedule catalog surgery export remote remote-save writers scale open-stall; do echo "== $b"; run "$b"; done
else
  run "$which" "$@"
fi
