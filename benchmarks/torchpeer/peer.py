#!/usr/bin/env python3
"""The PyTorch peer of benchmarks/torchpeer: GraphSAGE (mean) training steps
on minibatches that bulksample sampled and exported (see export.go for the
format), tuned to be PyTorch at its best on a CPU:

- mean aggregation as one fused kernel, embedding_bag with per-sample
  weights (the normalised block values), in forward; in backward the same
  kernel on the transposed block (built when backward first needs it), so
  neither pass materialises the gathered neighbour rows or a sparse tensor;
- the sparse input features (Cora) multiplied by the weights with the same
  kernel (x @ W as a bag of weighted rows of W), forward and transposed;
- hand-written backward (no autograd graph), in-place and out= operations
  into buffers allocated once and reused across steps;
- dropout masks drawn four per random number (64 random bits cut into four
  16-bit draws, compared with a 16-bit threshold, as bulksample does), the
  dropout scale folded into the products' alpha instead of a pass over the
  activations and the backward products' alpha, and the masks applied as
  float32 multiplications (see Dropout);
- one flat parameter tensor (the layers' weights are views of it) and one
  Adam step over it (torch.optim.Adam's arithmetic);
- torch.set_num_threads(--threads); OpenBLAS threads, OMP_WAIT_POLICY=PASSIVE
  and glibc malloc settings that keep freed memory for reuse in huge pages
  (GLIBC_TUNABLES) set by the caller in the environment.

What the public API leaves on one thread in Debian's build (no FBGEMM):
embedding_bag and the mt19937 draws of random_ (about 40 and 30 ms of a
products step on the 2-core development machine); the dense products and
the element-wise passes use both threads.

It prints one JSON line: the per-step times of forward (with the loss),
backward and update, and the largest difference of its logits of minibatch
0 without dropout from bulksample's (the same initial weights), which must
be float32 rounding.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


class Block:
    """A block (rows = destinations, cols = sources) with its normalised
    values, and its transpose for the backward aggregation."""

    def __init__(self, d, e):
        self.rows, self.cols = e["rows"], e["cols"]
        self.indptr = torch.from_numpy(np.fromfile(os.path.join(d, e["indptr"]), dtype=np.int64))
        self.indices = torch.from_numpy(np.fromfile(os.path.join(d, e["indices"]), dtype=np.int32)).long()
        self.data = torch.from_numpy(np.fromfile(os.path.join(d, e["data"]), dtype=np.float32))
        self.offsets = self.indptr[:-1]

    def prepare(self):
        """Normalises the values (mean aggregation: rows sum to 1): work of
        every minibatch, timed in forward. The transpose is built by
        transpose(), only for the blocks whose backward aggregates (not the
        first layer's when its inputs are dense)."""
        lens = self.indptr[1:] - self.indptr[:-1]
        self.rowid = torch.repeat_interleave(torch.arange(self.rows), lens)
        sums = torch.zeros(self.rows).index_add_(0, self.rowid, self.data)
        self.w = self.data / sums.clamp_min(1e-30)[self.rowid]
        self.t_indices = None

    def transpose(self):
        """Builds the transpose for spmm_t: timed where it is needed."""
        perm = torch.argsort(self.indices, stable=True)
        self.t_indices = self.rowid[perm]
        self.t_w = self.w[perm]
        counts = torch.bincount(self.indices, minlength=self.cols)
        self.t_offsets = torch.zeros(self.cols, dtype=torch.int64)
        torch.cumsum(counts[:-1], 0, out=self.t_offsets[1:])

    def spmm(self, x):
        """A·x: the mean of the sampled neighbours' rows."""
        return F.embedding_bag(self.indices, x, self.offsets, mode="sum", per_sample_weights=self.w)

    def spmm_t(self, g):
        """Aᵀ·g: the aggregation's backward."""
        if self.t_indices is None:
            self.transpose()
        return F.embedding_bag(self.t_indices, g, self.t_offsets, mode="sum", per_sample_weights=self.t_w)


class Minibatch:
    def __init__(self, d, e, features):
        self.blocks = [Block(d, b) for b in e["blocks"]]
        self.labels = torch.from_numpy(np.fromfile(os.path.join(d, e["labels"]), dtype=np.int32)).long()
        self.x_rows = e["x_rows"]
        if e.get("x_sparse"):
            self.xs = Block(d, e["x_sparse"])
            self.x = None
        else:
            self.xs = None
            self.x = torch.from_numpy(np.fromfile(os.path.join(d, e["x_dense"]), dtype=np.float32)).view(self.x_rows, features)


class Dropout:
    """Masks drawn four per 64-bit random number: element e is dropped when
    its 16-bit draw is under the threshold (probability threshold/2^16).

    The mask is a float32 tensor of 1 (kept) and 0 (dropped) that the
    callers multiply by: in PyTorch 1.13 on a CPU, masked_fill_ with a bool
    mask (and a multiplication by a bool or uint8 tensor, which converts
    element by element) runs about ten times slower than a float32
    multiplication, and dominated the forward pass (130 of its 280 ms on
    the products configuration)."""

    def __init__(self, p):
        self.p = p
        self.threshold = int(round(p * 65536)) - 32768  # compared with signed 16-bit draws
        self.scale = 1.0 / (1.0 - p)
        self.bits = torch.empty(0, dtype=torch.int64)
        self.keep = torch.empty(0, dtype=torch.bool)
        self.keepf = torch.empty(0)

    def mask(self, n):
        """Returns a float32 tensor of n elements, 0 where dropped and 1
        elsewhere (a view of a buffer reused by the next call)."""
        words = (n + 3) // 4
        if self.bits.numel() < words:
            self.bits = torch.empty(words, dtype=torch.int64)
            self.keep = torch.empty(words * 4, dtype=torch.bool)
            self.keepf = torch.empty(words * 4)
        bits = self.bits[:words]
        # random_(lo, hi) draws 64 random bits per element for a range this
        # wide; its high 16 bits are then as uniform as the others.
        bits.random_(-(2 ** 63), 2 ** 63 - 1)
        draws = bits.view(torch.int16)[:n]
        keep, keepf = self.keep[:n], self.keepf[:n]
        # int16 -> bool -> float32: two vectorised passes; comparing into a
        # float32 output directly converts element by element (4x slower).
        torch.ge(draws, self.threshold, out=keep)
        keepf.copy_(keep)
        return keepf


class SAGE:
    def __init__(self, cfg, params):
        self.cfg = cfg
        L, hidden, fin, classes = cfg["layers"], cfg["hidden"], cfg["features"], cfg["classes"]
        self.dims = [fin] + [hidden] * (L - 1) + [classes]
        self.params = params.clone()
        self.grads = torch.zeros_like(self.params)
        self.layers = []
        off = 0
        for i in range(L):
            a, b = self.dims[i], self.dims[i + 1]
            w1 = self.params[off:off + a * b].view(a, b); g1 = self.grads[off:off + a * b].view(a, b); off += a * b
            w2 = self.params[off:off + a * b].view(a, b); g2 = self.grads[off:off + a * b].view(a, b); off += a * b
            bias = self.params[off:off + b]; gb = self.grads[off:off + b]; off += b
            self.layers.append(dict(w1=w1, w2=w2, b=bias, g1=g1, g2=g2, gb=gb, fin=a, fout=b))
        assert off == self.params.numel(), (off, self.params.numel())
        self.dropout = Dropout(cfg["dropout"])
        self.bufs = {}

    def buf(self, name, *shape):
        """A reusable buffer of at least shape's size, viewed as shape."""
        n = math.prod(shape)
        b = self.bufs.get(name)
        if b is None or b.numel() < n:
            b = torch.empty(int(n * 1.25) + 16)
            self.bufs[name] = b
        return b[:n].view(*shape)

    def forward(self, mb, train):
        """Returns the logits; keeps what backward needs."""
        p = self.dropout.p if train else 0.0
        alpha = self.dropout.scale if p > 0 else 1.0
        self.alpha = alpha
        self.saved = []
        h = None
        for i, (l, blk) in enumerate(zip(self.layers, mb.blocks)):
            blk.prepare()
            n_dst, n_src = blk.rows, blk.cols
            fout = l["fout"]
            out = self.buf("out%d" % i, n_dst, fout)
            if i == 0 and mb.xs is not None:
                # Sparse input: dropout on the stored values (zeros stay
                # zero), then x·W as bags of weighted rows of W.
                xs = mb.xs
                vals = xs.data
                if p > 0:
                    vals = vals * self.dropout.mask(vals.numel())
                xs.vals = vals
                t = F.embedding_bag(xs.indices, l["w2"], xs.offsets, mode="sum", per_sample_weights=vals)
                end = int(xs.indptr[n_dst])
                selfp = F.embedding_bag(xs.indices[:end], l["w1"], xs.offsets[:n_dst], mode="sum", per_sample_weights=vals[:end])
                agg_t = blk.spmm(t)
                # out = alpha·(self + agg) + b
                torch.add(selfp, agg_t, out=out)
                out.mul_(alpha).add_(l["b"])
                self.saved.append(dict(sparse=True, blk=blk, xs=xs, n_dst=n_dst))
                h = out
                continue
            if i == 0:
                x = self.buf("in0", mb.x.shape[0], mb.x.shape[1])
                if p > 0:
                    torch.mul(mb.x, self.dropout.mask(x.numel()).view(x.shape), out=x)
                else:
                    x.copy_(mb.x)
            else:
                x = h  # the previous pre-activation: ReLU and dropout in place
                if p > 0:
                    x.clamp_min_(0.0).mul_(self.dropout.mask(x.numel()).view(x.shape))
                else:
                    x.clamp_min_(0.0)
            agg = blk.spmm(x)
            x_dst = x[:n_dst]
            torch.addmm(l["b"], x_dst, l["w1"], alpha=alpha, out=out)
            out.addmm_(agg, l["w2"], alpha=alpha)
            self.saved.append(dict(sparse=False, blk=blk, x=x, agg=agg, n_dst=n_dst))
            h = out
        return h

    def loss(self, logits, labels):
        """Mean cross-entropy and its gradient (into a reused buffer)."""
        logp = torch.log_softmax(logits, 1)
        loss = F.nll_loss(logp, labels)
        d = self.buf("dlogits", *logits.shape)
        torch.exp(logp, out=d)
        d[torch.arange(labels.numel()), labels] -= 1.0
        d.div_(labels.numel())
        return loss.item(), d

    def backward(self, d):
        alpha = self.alpha
        for i in range(len(self.layers) - 1, -1, -1):
            l, s = self.layers[i], self.saved[i]
            torch.sum(d, 0, out=l["gb"])
            blk = s["blk"]
            if s["sparse"]:
                # out = alpha·(x_dst·W1 + A·(x·W2)) + b
                xs, n_dst = s["xs"], s["n_dst"]
                xt = _transpose_csr(xs, xs.vals)
                dt = blk.spmm_t(d)  # n_src x fout
                dt.mul_(alpha)
                l["g2"].copy_(F.embedding_bag(xt[0], dt, xt[1], mode="sum", per_sample_weights=xt[2]))
                xtd = _transpose_csr(xs, xs.vals, rows=n_dst)
                l["g1"].copy_(F.embedding_bag(xtd[0], d, xtd[1], mode="sum", per_sample_weights=xtd[2]))
                l["g1"].mul_(alpha)
                continue
            x, agg, n_dst = s["x"], s["agg"], s["n_dst"]
            torch.mm(x[:n_dst].t(), d, out=l["g1"]); l["g1"].mul_(alpha)
            torch.mm(agg.t(), d, out=l["g2"]); l["g2"].mul_(alpha)
            if i == 0:
                break
            # The dropout scale alpha is folded into the products' alpha.
            dagg = self.buf("dagg%d" % i, n_dst, l["fin"])
            torch.addmm(dagg, d, l["w2"].t(), beta=0.0, alpha=alpha, out=dagg)
            dx = blk.spmm_t(dagg)
            dx[:n_dst].addmm_(d, l["w1"].t(), alpha=alpha)
            # Through dropout and ReLU: x > 0 where both passed (a float
            # mask: see Dropout).
            gate = self.buf("gate%d" % i, *x.shape)
            torch.gt(x, 0.0, out=gate)
            dx.mul_(gate)
            d = dx


def _transpose_csr(xs, vals, rows=None):
    """The transpose of the first rows rows of xs as (indices, offsets,
    weights) for embedding_bag."""
    rows = xs.rows if rows is None else rows
    end = int(xs.indptr[rows])
    lens = xs.indptr[1:rows + 1] - xs.indptr[:rows]
    rowid = torch.repeat_interleave(torch.arange(rows), lens)
    cols = xs.indices[:end]
    perm = torch.argsort(cols, stable=True)
    counts = torch.bincount(cols, minlength=xs.cols)
    offsets = torch.zeros(xs.cols, dtype=torch.int64)
    torch.cumsum(counts[:-1], 0, out=offsets[1:])
    return rowid[perm], offsets, vals[:end][perm]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    with open(os.path.join(a.dir, "manifest.json")) as f:
        m = json.load(f)
    cfg = m["config"]
    mbs = [Minibatch(a.dir, e, cfg["features"]) for e in m["minibatches"]]
    params = torch.from_numpy(np.fromfile(os.path.join(a.dir, m["params"]), dtype=np.float32))
    ref = torch.from_numpy(np.fromfile(os.path.join(a.dir, m["ref_logits"]), dtype=np.float32))
    model = SAGE(cfg, params)
    with torch.no_grad():
        logits = model.forward(mbs[0], train=False)
        diff = (logits.reshape(-1) - ref).abs().max().item()
        param = model.params
        opt = torch.optim.Adam([param], lr=cfg["lr"], foreach=False)
        param.grad = model.grads
        times = {"forward": [], "backward": [], "update": [], "cpu": []}
        loss0 = None
        for step in range(a.warmup + a.steps):
            mb = mbs[step % len(mbs)]
            c0 = time.process_time()
            t0 = time.perf_counter()
            logits = model.forward(mb, train=True)
            loss, d = model.loss(logits, mb.labels)
            t1 = time.perf_counter()
            model.backward(d)
            t2 = time.perf_counter()
            opt.step()
            t3 = time.perf_counter()
            c3 = time.process_time()
            if loss0 is None:
                loss0 = loss
            if step >= a.warmup:
                times["forward"].append(t1 - t0)
                times["backward"].append(t2 - t1)
                times["update"].append(t3 - t2)
                times["cpu"].append(c3 - c0)
    blas = "unknown"
    for line in torch.__config__.show().splitlines():
        if "BLAS_INFO" in line:
            blas = line.split("BLAS_INFO=")[1].split(",")[0]
    # Debian's torch calls the system's libblas.so.3: name the library it
    # resolves to, so that the table shows both sides use the same OpenBLAS.
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({l.split()[-1] for l in f if "blas" in l.split()[-1]})
        if libs:
            blas += " (" + ", ".join(os.path.realpath(l) for l in libs) + ")"
    except OSError:
        pass
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas,
                      "times": times, "max_logit_diff": diff, "loss0": loss0}))


if __name__ == "__main__":
    sys.exit(main())
