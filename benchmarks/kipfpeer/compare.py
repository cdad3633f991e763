#!/usr/bin/env python3
"""Compares `bulksample train --preset kipf-gcn` with the PyTorch peer
(kipf_gcn.py) on the same splits: for every dataset and split seed it runs
bulksample with --split-seed S --split-out FILE, then the peer on FILE, with
the same training seeds, and prints (and with --out writes) a markdown
table of the per-run test accuracies and their medians.

Usage (from the repository root, after `make build`):

  python3 benchmarks/kipfpeer/compare.py --bin bin/bulksample \\
      --datasets cora,citeseer --split-seeds 0 --train-seeds 1,2,3,4,5
  python3 benchmarks/kipfpeer/compare.py --bin bin/bulksample \\
      --split-seeds 0-29 --train-seeds same --out benchmarks/results/kipfpeer.md

--train-seeds same trains each split with the training seed equal to its
split seed (one run per split), so that splits vary and each has one run.
Extra bulksample flags go after --; the peer's flags are --peer-bias and
--peer-decay-layers (kipf_gcn.py's --bias and --decay-layers).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kipf_gcn  # noqa: E402

import torch  # noqa: E402


def seeds(spec):
    out = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def ours(a, data, split_seed, seed, split_file, extra):
    cmd = [a.bin, "train", "--data", data, "--preset", "kipf-gcn", "--split-seed", str(split_seed),
           "--seed", str(seed), "--threads", str(a.threads), "--split-out", split_file, "--json"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    s = json.loads(p.stdout.strip().splitlines()[-1])
    return {"test_acc": s["test_acc"], "best_epoch": s["best_epoch"], "test_last": s["epochs"][-1]["test_acc"],
            "final_loss": s["final_loss"]}, cmd


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default="bin/bulksample")
    p.add_argument("--data-dir", default="../shared/data")
    p.add_argument("--datasets", default="cora,citeseer")
    p.add_argument("--split-seeds", default="0")
    p.add_argument("--train-seeds", default="1,2,3,4,5", help="comma-separated seeds, ranges a-b, or same")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--peer-bias", choices=["on", "off"], default="on")
    p.add_argument("--peer-decay-layers", choices=["first", "all"], default="first")
    p.add_argument("--dropout", type=float, default=0.5, help="dropout of both programs (bulksample's --dropout)")
    p.add_argument("--out", help="also write the markdown to this file")
    p.add_argument("extra", nargs="*", help="flags added to every bulksample command (after --)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    if a.dropout != 0.5:
        a.extra = ["--dropout", str(a.dropout)] + a.extra
    peer_args = argparse.Namespace(hidden=16, lr=0.01, dropout=a.dropout, weight_decay=5e-4, epochs=200, early_stopping=10,
                                   bias=a.peer_bias, decay_layers=a.peer_decay_layers)
    lines = []
    summary = []
    t0 = time.time()
    for name in a.datasets.split(","):
        path = os.path.join(a.data_dir, name + ".npz")
        pairs, x, labels, n = kipf_gcn.load_npz(path)
        adj = kipf_gcn.normalized_adjacency(pairs, n)
        xs = torch.tensor(kipf_gcn.row_normalize(x)).to_sparse().coalesce()
        y = torch.tensor(labels)
        rows = []
        for ss in seeds(a.split_seeds):
            tseeds = [ss] if a.train_seeds == "same" else seeds(a.train_seeds)
            with tempfile.TemporaryDirectory() as d:
                split_file = os.path.join(d, "split.json")
                for ts in tseeds:
                    o, cmd = ours(a, path, ss, ts, split_file, a.extra)
                    with open(split_file) as f:
                        split = json.load(f)
                    q = kipf_gcn.run(adj, xs, y, split, ts, peer_args)
                    rows.append((ss, ts, o, q))
                    print(f"{name} split {ss} seed {ts}: bulksample {o['test_acc']:.3f} (last {o['test_last']:.3f}), "
                          f"peer {q['test_acc']:.3f} (last {q['test_last']:.3f}, Kipf stop {q['test_kipf_stop']:.3f})",
                          file=sys.stderr, flush=True)
        med = lambda v: statistics.median(v)
        mean = lambda v: statistics.fmean(v)
        ob = [r[2]["test_acc"] for r in rows]
        pb = [r[3]["test_acc"] for r in rows]
        ol = [r[2]["test_last"] for r in rows]
        pl = [r[3]["test_last"] for r in rows]
        pk = [r[3]["test_kipf_stop"] for r in rows]
        of = [r[2]["final_loss"] for r in rows]
        pf = [r[3]["final_loss"] for r in rows]
        summary.append(f"| {name} | {len(rows)} | {med(ob):.3f} ({min(ob):.3f}–{max(ob):.3f}), mean {mean(ob):.3f} | "
                       f"{med(pb):.3f} ({min(pb):.3f}–{max(pb):.3f}), mean {mean(pb):.3f} | {med(ol):.3f} / {med(pl):.3f} | "
                       f"{med(pk):.3f}, mean {mean(pk):.3f} | {mean([o - q for o, q in zip(ob, pb)]):+.3f} | "
                       f"{mean(of):.3f} / {mean(pf):.3f} |")
        lines.append(f"\n{name}: per run (split seed, training seed: bulksample best-valid / last epoch; "
                     f"peer best-valid / last epoch / Kipf's early stop)\n")
        lines.append("| split seed | seed | bulksample | bulksample last | peer | peer last | peer Kipf stop |")
        lines.append("|---:|---:|---:|---:|---:|---:|---:|")
        for ss, ts, o, q in rows:
            lines.append(f"| {ss} | {ts} | {o['test_acc']:.3f} | {o['test_last']:.3f} | {q['test_acc']:.3f} | "
                         f"{q['test_last']:.3f} | {q['test_kipf_stop']:.3f} |")
    head = [f"bulksample `train --preset kipf-gcn --split-seed S --seed T --threads {a.threads} {' '.join(a.extra)}` "
            f"against the PyTorch peer (benchmarks/kipfpeer/kipf_gcn.py, torch {torch.__version__}, bias "
            f"{a.peer_bias}, weight decay on {a.peer_decay_layers} layer(s)) on the same splits; split seeds "
            f"{a.split_seeds}, training seeds {a.train_seeds}; {time.time() - t0:.0f} s.\n",
            "| dataset | runs | bulksample: median (range), mean | peer: median (range), mean | last epoch: bulksample / peer "
            "| peer, Kipf's early stop | mean paired difference | mean final training loss: bulksample / peer |",
            "|---|---:|---|---|---|---|---:|---|"]
    text = "\n".join(head + summary + lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
