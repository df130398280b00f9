"""What users would otherwise run: numpy.save and tf.train.Checkpoint.write of
the same arrays bench_save writes (N MiB of float32 in 256 tensors).

usage: bench_python.py DIR [--mib 2048] [--tensors 256] [--repeat 2]
Prints one JSON object (seconds, best of --repeat).
"""
import argparse
import json
import os
import shutil
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402


def fsync_tree(path):
    for root, _, files in os.walk(path):
        for f in files:
            fd = os.open(os.path.join(root, f), os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--mib", type=int, default=2048)
    ap.add_argument("--tensors", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    work = os.path.join(a.dir, "bench_python_run")
    n = a.mib * 1024 * 1024 // 4 // a.tensors
    arrays = [np.full(n, i, dtype=np.float32) for i in range(a.tensors)]
    result = {"bytes": n * 4 * a.tensors, "tensors": a.tensors}

    best = float("inf")
    for _ in range(a.repeat):
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        t = time.perf_counter()
        for i, arr in enumerate(arrays):
            np.save(os.path.join(work, f"a{i}.npy"), arr)
        fsync_tree(work)
        best = min(best, time.perf_counter() - t)
    result["numpy_save_fsync_s"] = best

    import tensorflow as tf
    variables = [tf.Variable(arr) for arr in arrays]
    del arrays
    ckpt = tf.train.Checkpoint(variables=variables)
    best = float("inf")
    for _ in range(a.repeat):
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        t = time.perf_counter()
        ckpt.write(os.path.join(work, "ckpt"))
        fsync_tree(work)  # TF does not fsync; count it so the comparison is like for like
        best = min(best, time.perf_counter() - t)
    result["tf_checkpoint_write_fsync_s"] = best
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
