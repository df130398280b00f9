"""Checks a checkpoint saved by N writers against TensorFlow.

usage: parts_merge_check.py OUT_DIR OURS SINGLE PART_PREFIX [PART_PREFIX...]

TensorFlow's own MergeV2Checkpoints merges the partial bundles
PART_PREFIX... (copies of what the writers left before our merge, in rank
order) into OUT_DIR/tf_merged. Then: our merged OURS.index must be byte for
byte TensorFlow's, and tf.train.load_checkpoint must read the same keys,
dtypes, shapes and values from OURS, from TensorFlow's merge and from
SINGLE (the same tensors saved by one process).
Prints one JSON line; exit status 1 on any difference.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def values(prefix):
    reader = tf.train.load_checkpoint(prefix)
    return {key: reader.get_tensor(key) for key in reader.get_variable_to_shape_map()}


def main():
    out_dir, ours, single = sys.argv[1:4]
    parts = sys.argv[4:]
    merged = os.path.join(out_dir, "tf_merged")
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=parts, destination_prefix=merged, delete_old_dirs=False)
    with open(merged + ".index", "rb") as f:
        tf_index = f.read()
    with open(ours + ".index", "rb") as f:
        our_index = f.read()
    problems = []
    if tf_index != our_index:
        problems.append("index differs from MergeV2Checkpoints' (%d vs %d bytes)" % (len(our_index), len(tf_index)))
    ours_v, tf_v, single_v = values(ours), values(merged), values(single)
    for name, other in (("MergeV2Checkpoints", tf_v), ("the single-process save", single_v)):
        if set(other) != set(ours_v):
            problems.append("keys differ from %s's: %s" % (name, sorted(set(other) ^ set(ours_v))))
            continue
        for key, value in ours_v.items():
            a, b = np.asarray(value), np.asarray(other[key])
            if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
                problems.append("%s differs from %s's" % (key, name))
    print(json.dumps({"ok": not problems, "tensors": len(ours_v), "index_bytes": len(our_index), "problems": problems}))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
