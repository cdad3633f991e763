#!/usr/bin/env python3
"""Writes the GPU bundle's training tables (scripts/gpu-run.sh part train,
benchmarks/results/gpu.md's layout) from the JSON lines of one run:

    train_report.py --out train.md [--tables step,epoch,accuracy] [--step step.jsonl] [--peer-step pyg-step.jsonl]
                    [--epoch epoch.jsonl] [--peer-epoch pyg-epoch.jsonl] [--accuracy accuracy.jsonl]

step.jsonl and epoch.jsonl are benchmarks/gputrain's lines, pyg-step.jsonl
and pyg-epoch.jsonl the peers', accuracy.jsonl one line per training run
({"data", "preset", "device", "seed", "test_acc", "val_acc"}). A missing or
empty input leaves its table saying so; nothing is made up. --tables writes
only the tables named, without the title (scripts/device-run.sh writes each
part's table as its rows come).
"""
import argparse
import json
import statistics


def lines(path):
    if not path:
        return []
    out = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        out.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass
    except OSError:
        pass
    return out


def ms(v):
    return "-" if v is None else ("%.3f" % v if v < 10 else "%.2f" % v)


def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else "%.2fx" % (a / b)


def step_table(ours, peers):
    out = ["## Training step on the same minibatches", ""]
    if not ours:
        return out + ["No result: `gputrain --mode step` did not finish (see run.log).", ""]
    o = ours[-1]
    sampler = next((p for p in peers if p.get("variant") == "sampler"), {})
    best = next((p for p in peers if "best" in p), None)
    variants = [p for p in peers if p.get("variant") not in (None, "sampler") and "best" not in p]
    out += ["Planted graph of %d vertices (%d stored edges, 47 classes, 100 features), 3-layer GraphSAGE (hidden 256, fanouts "
            "15,10,5, batch 1024, dropout 0.5, Adam lr 0.01); %d minibatches sampled once by bulksample's GPU sampler, %.0f sampled "
            "edges and %.0f input vertices each; medians of %d steps, milliseconds per minibatch, each phase ended by a "
            "synchronisation. Device: %s; ours: %s." % (o["nodes"], o["stored_edges"], o["minibatches"], o["edges_per_minibatch"],
                                                       o["inputs_per_minibatch"], o["steps"], o["device"], o["backend"]), ""]
    out += ["| side | sample | gather | forward | backward | update | step | step vs PyG |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    peer_step = best.get("step_ms") if best else None
    out.append("| bulksample, GPU | %s | %s | %s | %s | %s | %s | %s |" % (ms(o["sample_ms"]), ms(o["gather_ms"]), ms(o["forward_ms"]),
                                                                      ms(o["backward_ms"]), ms(o["update_ms"]), ms(o["step_ms"]),
                                                                      ratio(o["step_ms"], peer_step)))
    for p in variants:
        name = "PyG %s SAGEConv, %s" % (p.get("pyg", "?"), p["variant"])
        if "error" in p:
            out.append("| %s | - | - | - | - | - | (%s) | - |" % (name, p["error"].replace("|", "/")))
            continue
        mark = " (best)" if best and p["variant"] == best.get("best") else ""
        out.append("| %s%s | %s | %s | %s | %s | %s | %s | %s |" % (name, mark, ms(sampler.get("sample_ms")), ms(p["gather_ms"]),
                                                               ms(p["forward_ms"]), ms(p["backward_ms"]), ms(p["update_ms"]),
                                                               ms(p["step_ms"]), ratio(p["step_ms"], peer_step)))
    if not variants:
        out.append("| PyG SAGEConv | - | - | - | - | - | (no result: see run.log) | - |")
    if o.get("cpu_threads"):
        out.append("| bulksample, CPU %d threads (%s) | - | - | %s | %s | %s | %s | %s |" % (
            o["cpu_threads"], o.get("cpu_blas", "?"), ms(o["cpu_forward_ms"]), ms(o["cpu_backward_ms"]), ms(o["cpu_update_ms"]),
            ms(o["cpu_step_ms"]), ratio(o["cpu_step_ms"], peer_step)))
    out.append("")
    notes = []
    if o.get("cpu_threads"):
        notes.append("GPU/CPU per step: %s (the GPU's step over the CPU backend's at %d threads on the same minibatches); the "
                     "backends' logits of minibatch 0 without dropout differ by at most %.2g" % (
                         ratio(o["step_ms"], o["cpu_step_ms"]), o["cpu_threads"], o.get("max_logit_diff_cpu", float("nan"))))
    if best:
        notes.append("the peer's logits from bulksample's initial weights differ from ours by at most %.2g; its sample column is "
                     "benchmarks/gpupeer/torch_sampler.py on the same graph and seeds (PyG's own sampler needs pyg-lib)" % best.get("max_logit_diff", float("nan")))
    if o.get("fallbacks"):
        notes.append("library calls our backend replaced by its own kernels: " + "; ".join(o["fallbacks"]))
    notes.append("goal: our step at most 0.8x the peer's best")
    out += ["; ".join(notes) + ".", ""]
    return out


def epoch_table(ours, peers):
    out = ["## End-to-end epoch", ""]
    if not ours:
        return out + ["No result: `gputrain --mode epoch` did not finish (see run.log).", ""]
    o = ours[-1]
    p = peers[-1] if peers else None
    out += ["Planted graph of %d vertices (%d stored edges), %d training vertices, %d minibatches of 1024 an epoch; ours trains "
            "through package train as `bulksample train --device cuda` does (its device path: bulks of %d sampled on the GPU, the "
            "next while the current one trains, input rows gathered from the feature matrix in device memory; no evaluation, "
            "the sampling column overlaps the training); the peer "
            "is PyG's SAGEConv (%s) fed by benchmarks/gpupeer/torch_sampler.py in bulks of %s. Seconds; the last epoch is "
            "the warm one compared." % (o["nodes"], o["stored_edges"], o["train"], o["minibatches"], o["bulk"],
                                         p.get("variant", "?") if p else "-", p.get("bulk", "?") if p else "-"), ""]
    out += ["| side | epochs (s) | sampling in the last (s) | last epoch (s) | speed-up over PyG |", "|---|---|---:|---:|---:|"]
    last = o["epoch_seconds"][-1]
    plast = p["epoch_seconds"][-1] if p and p.get("epoch_seconds") else None
    out.append("| bulksample, GPU | %s | %.2f | %.2f | %s |" % (", ".join("%.2f" % s for s in o["epoch_seconds"]), o["sample_seconds"][-1],
                                                            last, ratio(plast, last)))
    if plast is not None:
        out.append("| PyG + PyTorch sampler | %s | %.2f | %.2f | 1.00x |" % (", ".join("%.2f" % s for s in p["epoch_seconds"]),
                                                                          p["sample_seconds"][-1], plast))
    else:
        out.append("| PyG + PyTorch sampler | - | - | - | (no result: see run.log) |")
    out += ["", "Goal: at least 3x faster than the peer end to end.", ""]
    return out


def accuracy_table(runs):
    out = ["## Cora and CiteSeer with the presets, CPU and GPU", ""]
    if not runs:
        return out + ["No result (see run.log).", ""]
    out += ["`bulksample train --data D --preset P --device cpu|cuda --seed S`; test accuracy of the best-valid epoch, median "
            "over the seeds run (the seeds are listed).", ""]
    out += ["| data | preset | CPU median | GPU median | CPU runs | GPU runs |", "|---|---|---:|---:|---|---|"]
    keys = []
    for r in runs:
        k = (r["data"], r["preset"])
        if k not in keys:
            keys.append(k)
    for d, pr in keys:
        cells = []
        for dev in ("cpu", "cuda"):
            accs = [r["test_acc"] for r in runs if r["data"] == d and r["preset"] == pr and r["device"] == dev and r.get("test_acc") is not None]
            seeds = [str(r["seed"]) for r in runs if r["data"] == d and r["preset"] == pr and r["device"] == dev and r.get("test_acc") is not None]
            cells.append(("%.4f" % statistics.median(accs)) if accs else "-")
            cells.append("%d (seeds %s)" % (len(accs), ",".join(seeds)) if accs else "0")
        out.append("| %s | %s | %s | %s | %s | %s |" % (d, pr, cells[0], cells[2], cells[1], cells[3]))
    out.append("")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--tables", help="comma-separated: step, epoch, accuracy (default all, with the title)")
    for k in ("step", "peer-step", "epoch", "peer-epoch", "accuracy"):
        ap.add_argument("--" + k)
    a = ap.parse_args()
    tables = a.tables.split(",") if a.tables else ["step", "epoch", "accuracy"]
    for t in tables:
        if t not in ("step", "epoch", "accuracy"):
            ap.error("--tables: unknown table %r (step, epoch, accuracy)" % t)
    text = [] if a.tables else ["# GPU training (issue 29)", ""]
    if "step" in tables:
        text += step_table(lines(a.step), lines(a.peer_step))
    if "epoch" in tables:
        text += epoch_table(lines(a.epoch), lines(a.peer_epoch))
    if "accuracy" in tables:
        text += accuracy_table(lines(a.accuracy))
    with open(a.out, "w") as f:
        f.write("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
