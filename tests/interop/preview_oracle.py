#!/usr/bin/env python3
"""numpy oracle for the preview tests (tests/engine/preview/tst_preview.cpp).

usage: preview_oracle.py REQUEST.json  ->  prints a JSON list on stdout

REQUEST.json: [{"npy": "a.npy", "bfloat16": false, "bins": 16}, ...]
Each answer follows the engine's contract (ckpt/preview.h): complex values
as sqrt(re*re + im*im) in float64, bool as 0/1, bfloat16 stored as uint16
bit patterns; min/max/mean/std over the finite values (std with ddof=0);
histogram = numpy.histogram of the finite float64 values over their
[min, max] (numpy's own (0, 1) when there are none).
"""
import json
import sys

import numpy as np


def as_float64(a, bfloat16):
    if bfloat16:
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if np.iscomplexobj(a):
        re = a.real.astype(np.float64)
        im = a.imag.astype(np.float64)
        return np.sqrt(re * re + im * im)
    return a.astype(np.float64)


def num(v):
    v = float(v)
    return v if np.isfinite(v) else None


def answer(req):
    a = np.load(req["npy"])
    x = as_float64(a, req.get("bfloat16", False)).ravel()
    fin = x[np.isfinite(x)]
    out = {
        "count": int(x.size),
        "finite": int(fin.size),
        "zeros": int(np.count_nonzero(x == 0)),
        "nan": int(np.count_nonzero(np.isnan(x))),
        "pos_inf": int(np.count_nonzero(x == np.inf)),
        "neg_inf": int(np.count_nonzero(x == -np.inf)),
    }
    if fin.size:
        out.update(min=num(fin.min()), max=num(fin.max()), mean=num(np.mean(fin)), std=num(np.std(fin)),
                   absmax=num(np.abs(fin).max()))
        lo, hi = float(fin.min()), float(fin.max())
    else:
        out.update(min=None, max=None, mean=None, std=None, absmax=None)
        lo, hi = 0.0, 1.0
    counts, edges = np.histogram(fin, bins=int(req.get("bins", 16)), range=(lo, hi))
    out["counts"] = [int(c) for c in counts]
    out["edges"] = [float(e) for e in edges]
    return out


def main():
    with open(sys.argv[1]) as f:
        reqs = json.load(f)
    json.dump([answer(r) for r in reqs], sys.stdout)


if __name__ == "__main__":
    main()
