#!/usr/bin/env python3
"""Before/after of the save, verify and restore benchmarks for an engine
change (docs/benchmarks.md, "Storage layer: before and after"): runs
bench_save, the verify half of bench_reader and the throughput half of
bench_restore from a BASELINE directory (a build of the commit before the
change: its bench_save, bench_reader, bench_restore, ckpt and
libckpt-engine.so.0 side by side) and from this tree's build, alternating
baseline and change ROUNDS times so both meet the same machine, and prints
the medians and the change/baseline ratios as JSON. Every figure is also
taken relative to the plain-file baseline the benchmark measures in the same
run (dd, cat), which cancels much of a shared machine's drift.
  bench_ab.py BASELINE BUILD SCRATCH [--rounds 3] [--mib 512]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys


def run(cmd, env, ok_codes=(0,)):
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode not in ok_codes:
        sys.exit(f"bench_ab: {' '.join(cmd)} exited {out.returncode}:\n{out.stdout}{out.stderr}")
    return out.stdout


def one_round(side, bins, scratch, mib, results):
    env = dict(os.environ)
    # `ckpt verify` records into the user's catalog when one exists, and an
    # older ckpt refuses a newer catalog's schema: both sides get none.
    env["XDG_DATA_HOME"] = os.path.abspath(os.path.join(scratch, "no-catalog"))
    if bins["lib"]:
        env["LD_LIBRARY_PATH"] = bins["lib"]
    save = json.loads(run([bins["save"], scratch, "--mib", str(mib), "--repeat", "1"], env))
    results.setdefault("save_1_shard_s", []).append(save["save_1_shard_s"])
    results.setdefault("save_4_shards_s", []).append(save["save_4_shards_s"])
    results.setdefault("save_1_shard_vs_dd", []).append(save["ratio_1_shard_vs_dd"])
    # bench_reader exits 1 when verify misses its 0.8x-cat target, which a
    # loaded machine can make happen to either side: the run is still a figure.
    text = run([bins["reader"], "--only", "verify", "--verify-gib", str(mib / 1024), "--repeat", "1", "--ckpt", bins["ckpt"],
                "--dir", os.path.join(scratch, "reader")], env, ok_codes=(0, 1))
    m = re.search(r"run 1: cat\s+([\d.]+) MB/s\s+ckpt verify\s+([\d.]+) MB/s", text)
    if not m:
        sys.exit(f"bench_ab: no verify figure from {bins['reader']}:\n{text}")
    results.setdefault("verify_MB_per_s", []).append(float(m.group(2)))
    results.setdefault("verify_vs_cat", []).append(float(m.group(2)) / float(m.group(1)))
    restore = json.loads(run([bins["restore"], os.path.join(scratch, "restore"), "--mib", str(mib), "--nodes", "49"], env))
    results.setdefault("restore_GiB_per_s", []).append(restore["throughput"]["restore_gib_per_s"])
    results.setdefault("restore_vs_cat", []).append(restore["throughput"]["ratio"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline")
    parser.add_argument("build")
    parser.add_argument("scratch")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mib", type=int, default=512)
    args = parser.parse_args()
    sides = {
        "baseline": {"save": os.path.join(args.baseline, "bench_save"), "reader": os.path.join(args.baseline, "bench_reader"),
                     "restore": os.path.join(args.baseline, "bench_restore"), "ckpt": os.path.join(args.baseline, "ckpt"),
                     "lib": args.baseline},
        "change": {"save": os.path.join(args.build, "bench", "bench_save"),
                   "reader": os.path.join(args.build, "bench", "bench_reader"),
                   "restore": os.path.join(args.build, "bench", "restore", "bench_restore"),
                   "ckpt": os.path.join(args.build, "app", "cli", "ckpt"), "lib": ""},
    }
    results = {"baseline": {}, "change": {}}
    os.makedirs(args.scratch, exist_ok=True)
    for r in range(args.rounds):
        for side in ("baseline", "change") if r % 2 == 0 else ("change", "baseline"):
            one_round(side, sides[side], args.scratch, args.mib, results[side])
            print(f"round {r + 1} {side}: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in results[side].items()),
                  file=sys.stderr)
    summary = {"rounds": args.rounds, "mib": args.mib, "load_average": os.getloadavg()}
    for key in results["baseline"]:
        b = statistics.median(results["baseline"][key])
        c = statistics.median(results["change"][key])
        summary[key] = {"baseline_median": b, "change_median": c, "change_over_baseline": c / b,
                        "baseline_runs": results["baseline"][key], "change_runs": results["change"][key]}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
