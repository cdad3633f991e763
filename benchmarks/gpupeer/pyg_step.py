#!/usr/bin/env python3
"""The PyTorch Geometric peer of `gputrain --mode step` (the GPU bundle's
training table, scripts/gpu-run.sh part train): PyG's SAGEConv (mean) on the
blocks, features, labels and initial weights that bulksample sampled and
exported, on the GPU.

    pyg_step.py --dir EXPORT [--steps 20] [--warmup 5] [--variants eager,csr,compile]

The model is bulksample's: L SAGEConv layers (lin_r = W_self, lin_l = W_neigh
with the bias), ReLU on hidden layers, dropout on every layer's input (the
features included), cross-entropy over the seeds, torch.optim.Adam (fused
where this PyTorch has it). Before timing it checks its logits of minibatch 0
without dropout against bulksample's (the same initial weights): the largest
difference must be float32 rounding.

A step is timed like bulksample's: gather (x[n_id], the input rows from the
feature matrix on the GPU), forward with the loss, backward, update, each
ended by torch.cuda.synchronize(). Variants, to show PyG at its best:
  eager    SAGEConv on edge_index (PyG's scatter aggregation);
  csr      SAGEConv on a torch.sparse CSR adjacency (adj_t, cuSPARSE's SpMM
           through torch.sparse.mm);
  compile  the eager model under torch.compile(dynamic=True) (the minibatches
           differ in size), compiled during the warm-up, given --compile-seconds.
It prints one JSON line per variant (a variant that fails prints its error)
and a last line naming the fastest ("best").
"""
import argparse
import json
import os
import signal
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def arr(d, name, dtype):
    return np.fromfile(os.path.join(d, name), dtype=dtype)


class Minibatch:
    def __init__(self, d, e, dev):
        self.blocks = []  # (edge_index, adj_t, n_dst, n_src), input layer first
        for b in e["blocks"]:
            indptr = torch.from_numpy(arr(d, b["indptr"], np.int64)).to(dev)
            cols = torch.from_numpy(arr(d, b["indices"], np.int32)).to(dev).long()
            rows, n_src = b["rows"], b["cols"]
            dst = torch.repeat_interleave(torch.arange(rows, device=dev), indptr[1:] - indptr[:-1])
            ei = torch.stack([cols, dst])
            adj_t = torch.sparse_csr_tensor(indptr, cols, torch.ones(cols.numel(), device=dev), size=(rows, n_src))
            self.blocks.append((ei, adj_t, rows, n_src))
        self.n_id = torch.from_numpy(arr(d, e["input"], np.int32)).to(dev).long()
        self.y = torch.from_numpy(arr(d, e["labels"], np.int32)).to(dev).long()


def build_model(m, params, dev):
    from torch_geometric.nn import SAGEConv

    dims = [m["features"]] + [m["hidden"]] * (m["layers"] - 1) + [m["classes"]]

    class SAGE(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.convs = torch.nn.ModuleList(SAGEConv(dims[i], dims[i + 1], aggr="mean") for i in range(len(dims) - 1))
            self.p = m["dropout"]

        def forward(self, x, adjs):
            for i, (conv, (adj, n_dst)) in enumerate(zip(self.convs, adjs)):
                x = F.dropout(x, self.p, self.training)
                x = conv((x, x[:n_dst]), adj)
                if i < len(self.convs) - 1:
                    x = x.relu()
            return x

    model = SAGE().to(dev)
    off = 0
    with torch.no_grad():
        for i, conv in enumerate(model.convs):
            a, b = dims[i], dims[i + 1]
            w_self = params[off:off + a * b].reshape(a, b); off += a * b
            w_neigh = params[off:off + a * b].reshape(a, b); off += a * b
            bias = params[off:off + b]; off += b
            conv.lin_r.weight.copy_(torch.from_numpy(w_self.T.copy()))
            conv.lin_l.weight.copy_(torch.from_numpy(w_neigh.T.copy()))
            conv.lin_l.bias.copy_(torch.from_numpy(bias.copy()))
    assert off == params.size, (off, params.size)
    return model


def adam(params, lr):
    try:
        return torch.optim.Adam(params, lr=lr, fused=True), "fused"
    except (TypeError, RuntimeError):
        return torch.optim.Adam(params, lr=lr), "foreach"


def adjs_of(mb, variant):
    k = 1 if variant == "csr" else 0
    return [(b[k], b[2]) for b in mb.blocks]


def run_variant(variant, m, params, mbs, x, ref, args, dev):
    model = build_model(m, params, dev)
    fwd = model
    if variant == "compile":
        fwd = torch.compile(model, dynamic=True)
    model.eval()
    with torch.no_grad():
        logits = fwd(x[mbs[0].n_id], adjs_of(mbs[0], variant))
        diff = (logits.reshape(-1) - ref).abs().max().item()
    model.train()
    opt, kind = adam(model.parameters(), m["lr"])
    sync = torch.cuda.synchronize
    times = {"gather": [], "forward": [], "backward": [], "update": []}
    loss0 = None
    for step in range(args.warmup + args.steps):
        mb = mbs[step % len(mbs)]
        sync()
        t0 = time.perf_counter()
        xs = x[mb.n_id]
        sync()
        t1 = time.perf_counter()
        out = fwd(xs, adjs_of(mb, variant))
        loss = F.cross_entropy(out, mb.y, ignore_index=-1)
        sync()
        t2 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        sync()
        t3 = time.perf_counter()
        opt.step()
        sync()
        t4 = time.perf_counter()
        if loss0 is None:
            loss0 = loss.item()
        if step >= args.warmup:
            for k, v in zip(("gather", "forward", "backward", "update"), (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
                times[k].append(v)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    steps = [f + b + u for f, b, u in zip(times["forward"], times["backward"], times["update"])]
    return {"variant": variant, "adam": kind, "max_logit_diff": diff, "loss0": loss0,
            "gather_ms": med["gather"], "forward_ms": med["forward"], "backward_ms": med["backward"],
            "update_ms": med["update"], "step_ms": statistics.median(steps) * 1e3}


def sampler_time(d, m, dev, reps=5):
    """The vectorised PyTorch sampler (torch_sampler.py, bulksample's
    semantics) on the same graph and seeds, the minibatches in one bulk as
    bulksample sampled them: the median time per minibatch."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_sampler

    g = m["graph"]
    indptr = torch.from_numpy(arr(d, g["indptr"], np.int64)).to(dev)
    indices = torch.from_numpy(arr(d, g["indices"], np.int32)).to(dev).long()
    seeds = [torch.from_numpy(arr(d, e["seeds"], np.int32)).to(dev).long() for e in m["minibatches"]]
    k = len(seeds)
    smb = torch.cat([torch.full((s.numel(),), i, device=dev, dtype=torch.int64) for i, s in enumerate(seeds)])
    allseeds = torch.cat(seeds)
    gen = torch.Generator(device=dev)
    gen.manual_seed(1)
    times = []
    with torch.inference_mode():
        for _ in range(reps + 1):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            torch_sampler.sample_bulk(indptr, indices, allseeds, smb, k, m["fanouts"], gen, dev, g["nodes"])
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) / k)
    return {"variant": "sampler", "sample_ms": statistics.median(times[1:]) * 1e3}


class Timeout(Exception):
    pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--variants", default="eager,csr,compile")
    ap.add_argument("--compile-seconds", type=int, default=120)
    args = ap.parse_args()
    dev = torch.device("cuda")
    import torch_geometric

    with open(os.path.join(args.dir, "manifest.json")) as f:
        m = json.load(f)
    x = torch.from_numpy(arr(args.dir, m["x"], np.float32).reshape(m["nodes"], m["features"])).to(dev)
    mbs = [Minibatch(args.dir, e, dev) for e in m["minibatches"]]
    params = arr(args.dir, m["params"], np.float32)
    ref = torch.from_numpy(arr(args.dir, m["ref_logits"], np.float32)).to(dev)
    head = {"peer": "pyg", "torch": torch.__version__, "pyg": torch_geometric.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0)}
    print(json.dumps(dict(head, **sampler_time(args.dir, m, dev))), flush=True)
    best = None
    for variant in args.variants.split(","):
        res = dict(head)
        try:
            if variant == "compile":
                def alarm(signum, frame):
                    raise Timeout("torch.compile took more than %d s" % args.compile_seconds)
                signal.signal(signal.SIGALRM, alarm)
                signal.alarm(args.compile_seconds)
            try:
                res.update(run_variant(variant, m, params, mbs, x, ref, args, dev))
            finally:
                signal.alarm(0)
        except Exception as e:  # report and go on: another variant may run
            res.update({"variant": variant, "error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")})
        print(json.dumps(res), flush=True)
        if "step_ms" in res and (best is None or res["step_ms"] < best["step_ms"]):
            best = res
    if best is None:
        print(json.dumps(dict(head, best=None, error="no variant ran")), flush=True)
        return 1
    print(json.dumps(dict(best, best=best["variant"])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
