#!/usr/bin/env python3
"""Full-batch GCN of Kipf and Welling (ICLR 2017) in PyTorch: the peer that
`bulksample train --preset kipf-gcn` is compared against on the same split.

It reads a gnn-benchmark .npz file (the format of ../shared/data/cora.npz)
with numpy, and the split from a JSON file that `bulksample train
--split-out FILE` writes ({"train": [ids], "valid": [ids], "test": [ids]},
0-based rows of the file's graph), so that both programs train and test on
the same vertices. The model and training follow Kipf's code (gcn/train.py,
models.py) and PyG's examples/gcn.py:

  - adjacency: the stored (directed) entries made symmetric, self loops
    dropped, then A + I normalised as D^-1/2 (A+I) D^-1/2 with D the row sums
    of A + I (Kipf's preprocess_adj);
  - features: every row scaled to sum 1 (Kipf's preprocess_features, PyG's
    NormalizeFeatures);
  - 2 layers, hidden 16, ReLU, dropout 0.5 on the input features and on the
    hidden layer, Glorot-uniform weights, zero biases (--bias off: no bias,
    as in Kipf's code; on: PyG's GCNConv default);
  - loss: mean cross entropy over the training vertices, plus weight decay
    5e-4 (coupled L2, as torch.optim.Adam's weight_decay and Kipf's
    weight_decay * tf.nn.l2_loss add it to the gradient) on the first
    layer's parameters only (--decay-layers all: on every parameter);
  - Adam, lr 0.01, 200 epochs, one full-batch step per epoch;
  - evaluation after every epoch without dropout. Three test accuracies are
    reported: at the epoch of the best validation accuracy (the first on
    ties: what bulksample reports, and PyG's example), at the last epoch,
    and at Kipf's early stop (stop once the validation loss exceeds the mean
    of the 10 before it; 200 epochs at most).

Usage:

  python3 benchmarks/kipfpeer/kipf_gcn.py --data ../shared/data/cora.npz \\
      --split split.json --seeds 1,2,3,4,5 [--bias on|off] [--decay-layers first|all]

It prints one JSON object per seed, then one line with the medians.
"""

import argparse
import json
import math
import statistics
import sys

import numpy as np
import torch


def load_npz(path):
    """Returns the symmetric 0/1 adjacency without self loops (a scipy-free
    COO: rows, cols), the dense features, the labels and the node count."""
    z = np.load(path, allow_pickle=False)
    n = int(z["adj_shape"][0])
    indptr, indices = z["adj_indptr"].astype(np.int64), z["adj_indices"].astype(np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    r = np.concatenate([rows, indices])
    c = np.concatenate([indices, rows])
    keep = r != c
    pairs = np.unique(np.stack([r[keep], c[keep]]), axis=1)
    if "attr_data" in z.files:
        f = int(z["attr_shape"][1])
        x = np.zeros((n, f), dtype=np.float32)
        aptr = z["attr_indptr"].astype(np.int64)
        arows = np.repeat(np.arange(n, dtype=np.int64), np.diff(aptr))
        x[arows, z["attr_indices"]] = z["attr_data"]
    else:
        x = z["attr_matrix"].astype(np.float32)
    labels = z["labels"].astype(np.int64)
    return pairs, x, labels, n


def normalized_adjacency(pairs, n):
    """D^-1/2 (A+I) D^-1/2 as a torch sparse matrix."""
    loops = np.arange(n, dtype=np.int64)
    r = np.concatenate([pairs[0], loops])
    c = np.concatenate([pairs[1], loops])
    deg = np.bincount(r, minlength=n).astype(np.float64)
    dinv = 1 / np.sqrt(deg)
    vals = dinv[r] * dinv[c]
    return torch.sparse_coo_tensor(np.stack([r, c]), torch.tensor(vals, dtype=torch.float32), (n, n)).coalesce()


def row_normalize(x):
    s = x.sum(axis=1, keepdims=True)
    s[s == 0] = 1
    return x / s


class GCN(torch.nn.Module):
    def __init__(self, fin, hidden, classes, bias, dropout):
        super().__init__()
        self.w0 = torch.nn.Parameter(torch.empty(fin, hidden))
        self.w1 = torch.nn.Parameter(torch.empty(hidden, classes))
        torch.nn.init.xavier_uniform_(self.w0)
        torch.nn.init.xavier_uniform_(self.w1)
        self.b0 = torch.nn.Parameter(torch.zeros(hidden)) if bias else None
        self.b1 = torch.nn.Parameter(torch.zeros(classes)) if bias else None
        self.dropout = dropout

    def first_layer(self):
        return [p for p in (self.w0, self.b0) if p is not None]

    def other_layers(self):
        return [p for p in (self.w1, self.b1) if p is not None]

    def forward(self, adj, x):
        # x is sparse: dropout of its stored entries (Kipf's sparse_dropout;
        # the zeros a dense dropout would also draw stay zero either way).
        if self.training and self.dropout > 0:
            keep = torch.rand(x._nnz()) >= self.dropout
            x = torch.sparse_coo_tensor(x.indices()[:, keep], x.values()[keep] / (1 - self.dropout), x.shape)
        h = torch.sparse.mm(adj, torch.sparse.mm(x, self.w0))
        if self.b0 is not None:
            h = h + self.b0
        h = torch.relu(h)
        h = torch.nn.functional.dropout(h, self.dropout, self.training)
        out = torch.sparse.mm(adj, h @ self.w1)
        if self.b1 is not None:
            out = out + self.b1
        return out


def run(adj, x, y, split, seed, a):
    torch.manual_seed(seed)
    model = GCN(x.shape[1], a.hidden, int(y.max()) + 1, a.bias == "on", a.dropout)
    if a.decay_layers == "first":
        groups = [{"params": model.first_layer(), "weight_decay": a.weight_decay},
                  {"params": model.other_layers(), "weight_decay": 0.0}]
    else:
        groups = [{"params": model.first_layer() + model.other_layers(), "weight_decay": a.weight_decay}]
    opt = torch.optim.Adam(groups, lr=a.lr)
    train, valid, test = (torch.tensor(split[k], dtype=torch.int64) for k in ("train", "valid", "test"))
    best_val, best_epoch, best_test = -1.0, 0, 0.0
    val_losses, stop_epoch, stop_test = [], None, None
    for epoch in range(1, a.epochs + 1):
        model.train()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(adj, x)[train], y[train])
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            out = model(adj, x)
            pred = out.argmax(1)
            val_acc = (pred[valid] == y[valid]).float().mean().item()
            test_acc = (pred[test] == y[test]).float().mean().item()
            val_losses.append(torch.nn.functional.cross_entropy(out[valid], y[valid]).item())
        if val_acc > best_val:
            best_val, best_epoch, best_test = val_acc, epoch, test_acc
        if stop_epoch is None and epoch > a.early_stopping and val_losses[-1] > np.mean(val_losses[-(a.early_stopping + 1):-1]):
            stop_epoch, stop_test = epoch, test_acc
    if stop_epoch is None:
        stop_epoch, stop_test = a.epochs, test_acc
    return {"seed": seed, "test_acc": best_test, "best_epoch": best_epoch, "val_acc": best_val,
            "test_last": test_acc, "test_kipf_stop": stop_test, "kipf_stop_epoch": stop_epoch,
            "final_loss": loss.item()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="gnn-benchmark .npz file")
    p.add_argument("--split", required=True, help="split JSON file (bulksample train --split-out)")
    p.add_argument("--seeds", default="1,2,3,4,5", help="comma-separated torch seeds")
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--decay-layers", choices=["first", "all"], default="first")
    p.add_argument("--bias", choices=["on", "off"], default="on")
    p.add_argument("--early-stopping", type=int, default=10, help="Kipf's window of validation losses")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    pairs, x, labels, n = load_npz(a.data)
    with open(a.split) as f:
        split = json.load(f)
    for k in ("train", "valid", "test"):
        ids = split.get(k)
        if not isinstance(ids, list) or any(not isinstance(v, int) or v < 0 or v >= n for v in ids):
            sys.exit(f"{a.split}: {k!r} is not a list of vertex ids in [0, {n})")
    adj = normalized_adjacency(pairs, n)
    x = torch.tensor(row_normalize(x)).to_sparse().coalesce()
    y = torch.tensor(labels)
    res = []
    for s in a.seeds.split(","):
        r = run(adj, x, y, split, int(s), a)
        r.update(data=a.data, split=a.split)
        print(json.dumps(r), flush=True)
        res.append(r)
    med = {k: statistics.median(r[k] for r in res) for k in ("test_acc", "test_last", "test_kipf_stop")}
    print(json.dumps({"median": med, "runs": len(res), "torch": torch.__version__}))


if __name__ == "__main__":
    main()
