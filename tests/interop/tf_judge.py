"""What the interop scripts that judge our outputs with TensorFlow share
(surgery_fixtures.py, parity_cases.py): reading a checkpoint as TensorFlow
does, the one-ulp rule for values computed in float64, a case's findings,
and the --check pass that writes OUT_DIR/check.json for the C++ driver:

    {"cases": {name: {"ok", "problems": [...], "checked": n}}}

Import it after TensorFlow's environment variables are set.
"""
import json
import os

import numpy as np
import tensorflow as tf

GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
# Machine epsilon of each floating dtype, and its smallest subnormal: one
# unit in the last place of a value x is at most max(|x| * eps, tiny).
EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}
TINY = {"float16": 2.0**-24, "bfloat16": 2.0**-133, "float32": 2.0**-149, "float64": 5e-324}
COMPONENT = {"complex64": "float32", "complex128": "float64"}  # a complex dtype's parts


def values_of(prefix):
    """key -> (tf.DType, numpy value), as tf.train.load_checkpoint reads them."""
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    return {k: (dtypes[k], np.asarray(reader.get_tensor(k))) for k in reader.get_variable_to_shape_map() if k != GRAPH_KEY}


def keys_of(prefix):
    return set(tf.train.load_checkpoint(prefix).get_variable_to_shape_map())


def ulp_problems(key, dtype, ours, expected, exact):
    """Whether 'ours' is within one ulp of 'dtype' of 'expected' (numpy's
    float64 'exact' cast to the dtype): [] or one line naming the first
    value that is not. Complex values are judged by the distance in the
    plane, with their parts' ulp."""
    wide = np.complex128 if dtype.is_complex else np.float64
    ours64 = np.asarray(ours).astype(wide).reshape(-1)
    cast64 = np.asarray(expected).astype(wide).reshape(-1)
    exact = np.asarray(exact).astype(wide).reshape(-1)
    name = COMPONENT.get(dtype.name, dtype.name)
    bound = np.maximum(np.abs(exact) * EPS[name], TINY[name])
    off = np.abs(ours64 - cast64) > bound
    if off.any():
        i = int(np.flatnonzero(off)[0])
        return ["%s (%s): %d value(s) more than one ulp from numpy's, first [%d]: ours %r, numpy %r (float64 %r)" %
                (key, dtype.name, int(off.sum()), i, ours64[i], cast64[i], exact[i])]
    return []


class Check:
    """One case's findings."""

    def __init__(self, name):
        self.name = name
        self.problems = []
        self.checked = 0

    def fail(self, message):
        self.problems.append(message)

    def equal(self, what, ours, theirs):
        if ours != theirs:
            self.fail("%s: ours %r, TensorFlow's %r" % (what, ours, theirs))
        else:
            self.checked += 1

    def result(self):
        return {"ok": not self.problems, "problems": self.problems, "checked": self.checked}


def judge_cases(out, cases, run_check):
    """The --check pass: run_check(case) -> Check.result() for every case
    that has a "check"; an exception is that case's problem, never the
    others'. Writes OUT/check.json; returns the exit status."""
    results = {}
    for case in cases:
        if "check" not in case:
            continue
        try:
            results[case["name"]] = run_check(dict(case))
        except Exception as e:  # noqa: BLE001 - one case's failure must not hide the others'
            results[case["name"]] = {"ok": False, "problems": ["%s: %s" % (type(e).__name__, e)], "checked": 0}
        print(case["name"], "ok" if results[case["name"]]["ok"] else results[case["name"]]["problems"], flush=True)
    with open(os.path.join(out, "check.json"), "w") as f:
        json.dump({"cases": results}, f, indent=1)
    return 0
