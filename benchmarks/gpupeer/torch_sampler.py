#!/usr/bin/env python3
"""A vectorised PyTorch GPU bulk sampler with bulksample's node-wise semantics:
the peer of `bulksample sample --device cuda` in the GPU bundle's node-wise
table (scripts/gpu-run.sh, part node).

    torch_sampler.py --npz PATH [--batch 1024] [--fanout 15,10,5] [--bulks 1,16,64,256]
                     [--minibatches M] [--reps 3] [--seed 1] [--device cuda] [--check]

Semantics (sampling.NodeWise, uniform, without replacement, frontier "all"):
a minibatch's frontier F_0 is its seeds (first occurrences); at layer l every
vertex of F_l draws min(s_l, deg) distinct neighbours, every such subset
equally likely; F_{l+1} is F_l followed by the new vertices in order of first
appearance (rows in order, a row's picks by column id); layer l's block holds
the sampled edges in local ids (rows: positions in F_l; columns: positions in
F_{l+1}). The k minibatches of a bulk are sampled together, layer by layer,
with whole-bulk tensor operations: no Python loop over minibatches or
vertices. Random numbers are torch's (not bulksample's stream), so the
samples differ from bulksample's; the law is the same.

Selection, vectorised over the rows of a layer by their degree:
  deg <= s       every neighbour;
  s < deg <= 4s  a random key per neighbour, a stable sort by (row, key), the
                 first s of each row (a uniform random s-subset);
  deg > 4s       2s independent uniform positions per row, the first s
                 distinct in draw order (also a uniform s-subset); a row with
                 fewer than s distinct draws (rare) is redone by keys.

The timing of a pass covers every bulk of the pass, from the seeds on the
GPU to the blocks on the GPU (CSR row offsets, local column ids, frontiers),
with a synchronisation at the end; the graph is moved to the GPU once, before.
It prints one JSON line per bulk size k: the sampled edges of a pass and the
median time of the warm passes (the first is the cold one). --check runs the
invariant checks (counts, distinctness, edges in the graph, numbering) on the
first bulk and fails loudly if one breaks.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np
import torch


def load_csr(path):
    z = np.load(path, allow_pickle=False)
    n = int(z["shape"][0])
    return n, z["indptr"].astype(np.int64), z["indices"].astype(np.int64)


def exclusive_cumsum(x):
    out = torch.zeros_like(x)
    if x.numel() > 1:
        out[1:] = torch.cumsum(x[:-1], 0)
    return out


def segment_rank(sorted_seg, nseg):
    """Rank of each element within its segment, for elements sorted by segment."""
    counts = torch.bincount(sorted_seg, minlength=nseg)
    starts = exclusive_cumsum(counts)
    return torch.arange(sorted_seg.numel(), device=sorted_seg.device) - starts[sorted_seg]


def first_occurrence_order(key, dev):
    """Unique keys, the inverse map, and each unique's first position."""
    uniq, inv = torch.unique(key, return_inverse=True)
    pos = torch.arange(key.numel(), device=dev)
    first = torch.full((uniq.numel(),), key.numel(), dtype=torch.int64, device=dev)
    first.scatter_reduce_(0, inv, pos, reduce="amin")
    return uniq, inv, first


def pick_by_keys(rows, deg, s, gen, dev):
    """The first s neighbours by random keys of each row (s < deg)."""
    tot = int(deg.sum())
    if tot == 0:
        e = torch.empty(0, dtype=torch.int64, device=dev)
        return e, e
    row_of = torch.repeat_interleave(torch.arange(rows.numel(), device=dev), deg)
    off = torch.arange(tot, device=dev) - torch.repeat_interleave(exclusive_cumsum(deg), deg)
    keys = row_of.to(torch.float64) + torch.rand(tot, generator=gen, device=dev, dtype=torch.float64)
    order = torch.sort(keys, stable=True).indices
    r, o = row_of[order], off[order]
    keep = segment_rank(r, rows.numel()) < s
    return rows[r[keep]], o[keep]


def pick_by_draws(rows, deg, s, gen, dev):
    """The first s distinct of 2s uniform draws per row; rows short of s distinct are returned apart."""
    m = 2 * s
    draws = (torch.rand((rows.numel(), m), generator=gen, device=dev, dtype=torch.float64) * deg[:, None]).to(torch.int64)
    draws = torch.minimum(draws, deg[:, None] - 1)
    flat = draws.reshape(-1)
    r = torch.arange(rows.numel(), device=dev).repeat_interleave(m)
    key = r * (int(deg.max()) + 1) + flat
    order = torch.sort(key, stable=True).indices  # stable: equal keys stay in draw order
    sk = key[order]
    first = torch.ones_like(sk, dtype=torch.bool)
    first[1:] = sk[1:] != sk[:-1]
    keep = torch.empty_like(first)
    keep[order] = first
    keep = keep.reshape(rows.numel(), m)
    rank = torch.cumsum(keep.to(torch.int64), 1)
    sel = keep & (rank <= s)
    short = rank[:, -1] < s
    sel &= ~short[:, None]
    rr = r.reshape(rows.numel(), m)[sel]
    return rows[rr], draws[sel], short


def sample_layer(indptr, indices, front, fmb, s, gen, dev):
    """One layer for all minibatches: (row, column) of the picks, rows in order, columns ascending."""
    start = indptr[front]
    deg = indptr[front + 1] - start
    rows = torch.arange(front.numel(), device=dev)
    parts_r, parts_p = [], []
    small = deg <= s
    if bool(small.any()):
        rs, ds = rows[small], deg[small]
        r = torch.repeat_interleave(rs, ds)
        p = torch.arange(int(ds.sum()), device=dev) - torch.repeat_interleave(exclusive_cumsum(ds), ds)
        parts_r.append(r)
        parts_p.append(p)
    mid = (deg > s) & (deg <= 4 * s)
    big = deg > 4 * s
    if bool(big.any()):
        r, p, short = pick_by_draws(rows[big], deg[big], s, gen, dev)
        parts_r.append(r)
        parts_p.append(p)
        mid = mid.clone()
        mid[rows[big][short]] = True
    if bool(mid.any()):
        r, p = pick_by_keys(rows[mid], deg[mid], s, gen, dev)
        parts_r.append(r)
        parts_p.append(p)
    r = torch.cat(parts_r)
    col = indices[start[r] + torch.cat(parts_p)]
    n = int(indptr.numel() - 1)
    order = torch.sort(r * n + col).indices  # rows in order, a row's picks by column id
    return r[order], col[order]


def sample_bulk(indptr, indices, seeds, smb, k, fanouts, gen, dev, n):
    """Samples one bulk; returns the sampled edges and the blocks (for --check)."""
    uniq, inv, first = first_occurrence_order(smb * n + seeds, dev)
    keep = torch.zeros(seeds.numel(), dtype=torch.bool, device=dev)
    keep[first] = True
    front, fmb = seeds[keep], smb[keep]  # first occurrences, in order (smb is sorted)
    blocks, edges = [], 0
    for s in fanouts:
        r, col = sample_layer(indptr, indices, front, fmb, s, gen, dev)
        pmb = fmb[r]
        nf = front.numel()
        key = torch.cat([fmb * n + front, pmb * n + col])
        uniq, inv, firstpos = first_occurrence_order(key, dev)
        new = firstpos >= nf
        # F_{l+1}: per minibatch, F_l then the new vertices by first appearance.
        umb = uniq // n
        total = key.numel()
        order_key = umb * (total + 1) + firstpos
        order = torch.sort(order_key).indices
        nxt, nmb = uniq[order] % n, umb[order]
        local = torch.empty_like(order)
        local[order] = segment_rank(nmb, k)  # each unique's position in its F_{l+1}
        fcounts = torch.bincount(fmb, minlength=k)
        row_local = torch.arange(nf, device=dev) - exclusive_cumsum(fcounts)[fmb]
        col_local = local[inv[nf:]]
        rowptr = torch.zeros(nf + 1, dtype=torch.int64, device=dev)
        rowptr[1:] = torch.cumsum(torch.bincount(r, minlength=nf), 0)
        blocks.append((front, fmb, row_local, rowptr, col_local, nxt, nmb, new.sum()))
        edges += int(r.numel())
        front, fmb = nxt, nmb
    return edges, blocks


def check_blocks(blocks, indptr_h, indices_h, fanouts, n):
    """Invariants of the first bulk (on the host): picks per row, distinctness, edges in A, numbering."""
    for l, (front, fmb, row_local, rowptr, col_local, nxt, nmb, _) in enumerate(blocks):
        front, fmb, rowptr, col_local, nxt, nmb = (x.cpu().numpy() for x in (front, fmb, rowptr, col_local, nxt, nmb))
        s = fanouts[l]
        mb_start = {}
        for i, m in enumerate(nmb):
            mb_start.setdefault(int(m), i)
        for i, v in enumerate(front):
            deg = indptr_h[v + 1] - indptr_h[v]
            cols = col_local[rowptr[i]:rowptr[i + 1]]
            if len(cols) != min(s, deg):
                raise SystemExit("check: layer %d row %d: %d picks, want %d" % (l, i, len(cols), min(s, deg)))
            base = mb_start[int(fmb[i])]
            verts = nxt[base + cols]
            if len(set(verts.tolist())) != len(verts):
                raise SystemExit("check: layer %d row %d: repeated picks" % (l, i))
            row = set(indices_h[indptr_h[v]:indptr_h[v + 1]].tolist())
            if not set(verts.tolist()) <= row:
                raise SystemExit("check: layer %d row %d: a pick is not a neighbour" % (l, i))
        # F_{l+1} starts with F_l, per minibatch.
        for m in set(fmb.tolist()):
            f = front[fmb == m]
            nx = nxt[nmb == m]
            if not np.array_equal(nx[:len(f)], f) or len(set(nx.tolist())) != len(nx):
                raise SystemExit("check: layer %d minibatch %d: F_l is not a prefix of F_l+1, or repeats" % (l, m))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--npz", required=True)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--fanout", default="15,10,5")
    ap.add_argument("--bulks", default="1,16,64,256")
    ap.add_argument("--minibatches", type=int, default=0, help="minibatches a pass (default max(64, k))")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    fanouts = [int(x) for x in args.fanout.split(",")]
    dev = torch.device(args.device)
    n, indptr_h, indices_h = load_csr(args.npz)
    indptr = torch.from_numpy(indptr_h).to(dev)
    indices = torch.from_numpy(indices_h).to(dev)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(args.seed)).to(dev)
    for k in [int(x) for x in args.bulks.split(",")]:
        nmb = args.minibatches or max(64, k)
        nmb = (nmb + k - 1) // k * k
        seeds_all = perm[: nmb * args.batch] if nmb * args.batch <= n else perm.repeat(nmb * args.batch // n + 1)[: nmb * args.batch]
        times, edges = [], 0
        with torch.inference_mode():
            for rep in range(max(args.reps, 1)):
                if dev.type == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                edges = 0
                for b0 in range(0, nmb, k):
                    seeds = seeds_all[b0 * args.batch:(b0 + k) * args.batch]
                    smb = torch.arange(k, device=dev).repeat_interleave(args.batch)
                    e, blocks = sample_bulk(indptr, indices, seeds, smb, k, fanouts, gen, dev, n)
                    edges += e
                    if args.check and rep == 0 and b0 == 0:
                        check_blocks(blocks, indptr_h, indices_h, fanouts, n)
                if dev.type == "cuda":
                    torch.cuda.synchronize()
                times.append(time.perf_counter() - t0)
        warm = statistics.median(times[1:]) if len(times) > 1 else times[0]
        print(json.dumps({"peer": "torch", "torch": torch.__version__, "device": str(dev), "k": k, "minibatches": nmb,
                          "batch": args.batch, "fanout": fanouts, "sampled_edges": edges, "seconds": warm,
                          "cold_seconds": times[0], "seps": edges / warm if warm > 0 else 0}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
