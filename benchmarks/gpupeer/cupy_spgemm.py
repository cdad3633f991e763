#!/usr/bin/env python3
"""CuPy's cuSPARSE product: the peer of `bulksample spgemm --device cuda` in the
GPU bundle's SpGEMM table (scripts/gpu-run.sh, part spgemm).

    cupy_spgemm.py --npz PATH [--select-rows N] [--reps R] [--seed S]

Reads the scipy CSR file PATH (indptr, indices, data, shape) with NumPy, moves
it to the GPU as a cupyx.scipy.sparse.csr_matrix (float32, as bulksample's),
and times R products on the device (each ends with a synchronisation): A·A,
or Q·A for a selection Q of N distinct random rows (one 1 per row). The first
product is the cold one; the headline is the median of the others. CuPy's
`@` on two CSR matrices is cuSPARSE's SpGEMM, which is what this measures at
its best (no conversions inside the timing, the operands resident). It prints
one JSON line; a failure of the product (e.g. CUSPARSE_STATUS_INSUFFICIENT_
RESOURCES for A·A at R-MAT scale 16 on an 80 GB H100) is reported in "error"
with exit status 0, since the table records it.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np


def load_csr(path):
    z = np.load(path, allow_pickle=False)
    shape = tuple(int(x) for x in z["shape"])
    indptr, indices = z["indptr"], z["indices"]
    data = z["data"] if "data" in z.files else np.ones(len(indices), dtype=np.float32)
    return shape, indptr, indices, data


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--npz", required=True)
    ap.add_argument("--select-rows", type=int, default=0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    out = {"peer": "cupy", "npz": args.npz, "select_rows": args.select_rows,
           "product": "Q·A" if args.select_rows else "A·A"}
    try:
        import cupy as cp
        import cupyx.scipy.sparse as cps
        out["cupy"] = cp.__version__
        out["cuda_runtime"] = cp.cuda.runtime.runtimeGetVersion()
    except Exception as e:  # no CuPy: the table says so
        out["error"] = "CuPy unavailable: %s" % e
        print(json.dumps(out))
        return 0
    shape, indptr, indices, data = load_csr(args.npz)
    n = shape[0]
    a = cps.csr_matrix((cp.asarray(data, dtype=cp.float32), cp.asarray(indices, dtype=cp.int32),
                        cp.asarray(indptr, dtype=cp.int32)), shape=shape)
    if args.select_rows:
        rng = np.random.default_rng(args.seed)
        rows = rng.choice(n, size=args.select_rows, replace=False).astype(np.int32)
        k = args.select_rows
        left = cps.csr_matrix((cp.ones(k, dtype=cp.float32), cp.asarray(rows), cp.arange(k + 1, dtype=cp.int32)),
                              shape=(k, n))
    else:
        left = a
    out["a_rows"], out["a_nnz"] = int(left.shape[0]), int(left.nnz)
    out["b_rows"], out["b_nnz"] = int(a.shape[0]), int(a.nnz)
    times = []
    try:
        for _ in range(max(args.reps, 1)):
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            c = left @ a
            cp.cuda.Device().synchronize()
            times.append(time.perf_counter() - t0)
            out["nnz_out"] = int(c.nnz)
            del c
    except Exception as e:
        out["error"] = "%s: %s" % (type(e).__name__, e)
    if times:
        out["cold_seconds"] = times[0]
        out["seconds"] = statistics.median(times[1:]) if len(times) > 1 else times[0]
        out["seconds_all"] = times
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
