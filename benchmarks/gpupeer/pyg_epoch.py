#!/usr/bin/env python3
"""The end-to-end peer of `gputrain --mode epoch` (the GPU bundle's training
part, scripts/gpu-run.sh part train): an epoch of PyTorch Geometric's
SAGEConv fed by the vectorised PyTorch GPU sampler of bulksample's semantics
(torch_sampler.py, beside this file; PyG's NeighborLoader cannot sample
without pyg-lib or torch-sparse), on the graph, features, labels and
training vertices gputrain exported.

    pyg_epoch.py --dir EXPORT [--bulk 64] [--epochs 2] [--variant eager|csr]

Each epoch permutes the training vertices, cuts them into minibatches of
--batch, samples --bulk minibatches at once on the GPU (fanouts --fanout),
and trains each: the input rows gathered from the feature matrix on the GPU
(x[n_id]), forward, the loss, backward and Adam (pyg_step.py's model, with
the variant pyg_step.py found fastest). It prints one JSON line with every
epoch's wall time (synchronised at its end) and its sampling share.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_sampler  # noqa: E402
from pyg_step import adam, arr  # noqa: E402


def build(features, hidden, classes, layers, dropout, dev):
    from torch_geometric.nn import SAGEConv

    dims = [features] + [hidden] * (layers - 1) + [classes]

    class SAGE(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = torch.nn.ModuleList(SAGEConv(dims[i], dims[i + 1], aggr="mean") for i in range(len(dims) - 1))

        def forward(self, x, adjs):
            for i, (conv, (adj, n_dst)) in enumerate(zip(self.convs, adjs)):
                x = F.dropout(x, dropout, self.training)
                x = conv((x, x[:n_dst]), adj)
                if i < len(self.convs) - 1:
                    x = x.relu()
            return x

    return SAGE().to(dev)


def minibatch_blocks(blocks, k, variant, dev):
    """Splits a bulk's layers (torch_sampler.sample_bulk's) into each
    minibatch's adjacencies, input layer first, and input vertices."""
    per_layer = []
    for (front, fmb, _row_local, rowptr, col_local, nxt, nmb, _new) in blocks:
        rs = torch.zeros(k + 1, dtype=torch.int64, device=dev)
        rs[1:] = torch.cumsum(torch.bincount(fmb, minlength=k), 0)
        ns = torch.zeros(k + 1, dtype=torch.int64, device=dev)
        ns[1:] = torch.cumsum(torch.bincount(nmb, minlength=k), 0)
        # The edge offsets of the minibatches' rows, read once per layer.
        per_layer.append((rs.tolist(), ns.tolist(), rowptr[rs].tolist(), rowptr, col_local, nxt))
    out = []
    for m in range(k):
        adjs, n_id = [], None
        for (rs, ns, es, rowptr, col_local, nxt) in reversed(per_layer):
            r0, r1 = rs[m], rs[m + 1]
            e0, e1 = es[m], es[m + 1]
            ptr = rowptr[r0:r1 + 1] - e0
            cols = col_local[e0:e1]
            n_dst, n_src = r1 - r0, ns[m + 1] - ns[m]
            if variant == "csr":
                adj = torch.sparse_csr_tensor(ptr, cols, torch.ones(cols.numel(), device=dev), size=(n_dst, n_src))
            else:
                dst = torch.repeat_interleave(torch.arange(n_dst, device=dev), ptr[1:] - ptr[:-1])
                adj = torch.stack([cols, dst])
            adjs.append((adj, n_dst))
            if n_id is None:
                n_id = nxt[ns[m]:ns[m + 1]]
        out.append((adjs, n_id))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--fanout", default="15,10,5")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--dropout", type=float, default=0.5)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--bulk", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--variant", default="eager", choices=["eager", "csr"])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    dev = torch.device("cuda")
    import torch_geometric

    fanouts = [int(v) for v in args.fanout.split(",")]
    with open(os.path.join(args.dir, "manifest.json")) as f:
        g = json.load(f)
    t0 = time.perf_counter()
    n = g["nodes"]
    indptr = torch.from_numpy(arr(args.dir, g["indptr"], np.int64)).to(dev)
    indices = torch.from_numpy(arr(args.dir, g["indices"], np.int32)).to(dev).long()
    x = torch.from_numpy(arr(args.dir, g["x"], np.float32).reshape(n, g["features"])).to(dev)
    y = torch.from_numpy(arr(args.dir, g["labels"], np.int32)).to(dev).long()
    train = torch.from_numpy(arr(args.dir, g["train"], np.int32)).to(dev).long()
    load = time.perf_counter() - t0
    torch.manual_seed(args.seed)
    model = build(g["features"], args.hidden, g["classes"], len(fanouts), args.dropout, dev)
    opt, kind = adam(model.parameters(), args.lr)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    res = {"peer": "pyg", "torch": torch.__version__, "pyg": torch_geometric.__version__, "device": torch.cuda.get_device_name(0),
           "variant": args.variant, "adam": kind, "nodes": n, "train": int(train.numel()), "bulk": args.bulk,
           "load_seconds": load, "epoch_seconds": [], "sample_seconds": [], "loss": [], "sampled_edges": 0}
    for epoch in range(args.epochs):
        perm = train[torch.randperm(train.numel(), device=dev, generator=gen)]
        nmb = (perm.numel() + args.batch - 1) // args.batch
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        sample, losses, edges = 0.0, [], 0
        for b0 in range(0, nmb, args.bulk):
            k = min(args.bulk, nmb - b0)
            seeds = perm[b0 * args.batch:(b0 + k) * args.batch]
            smb = torch.arange(k, device=dev).repeat_interleave(args.batch)[:seeds.numel()]
            ts = time.perf_counter()
            with torch.inference_mode():
                e, blocks = torch_sampler.sample_bulk(indptr, indices, seeds, smb, k, fanouts, gen, dev, n)
            mbs = minibatch_blocks(blocks, k, args.variant, dev)
            torch.cuda.synchronize()
            sample += time.perf_counter() - ts
            edges += e
            for m, (adjs, n_id) in enumerate(mbs):
                out = model(x[n_id], adjs)
                s0 = (b0 + m) * args.batch
                loss = F.cross_entropy(out, y[perm[s0:s0 + args.batch]], ignore_index=-1)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                losses.append(loss.detach())
        torch.cuda.synchronize()
        res["epoch_seconds"].append(time.perf_counter() - t0)
        res["sample_seconds"].append(sample)
        res["loss"].append(torch.stack(losses).mean().item())
        res["sampled_edges"] = edges
        res["minibatches"] = nmb
        print("pyg_epoch: epoch %d: %.2f s (sampling %.2f s), mean loss %.4f" % (epoch, res["epoch_seconds"][-1], sample, res["loss"][-1]),
              file=sys.stderr, flush=True)
    print(json.dumps(res), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
