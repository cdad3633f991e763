// Command torchpeer compares bulksample's GraphSAGE training compute with a
// tuned PyTorch implementation of the same model (peer.py, beside this file)
// on the same minibatches: it samples a few minibatches with bulksample's
// sampler, exports their blocks, input features and labels (and the initial
// parameters) to a directory, and then alternates rounds of training steps
// of its own model and of the peer, timing forward (with the loss),
// backward and the Adam update of every step. It writes a markdown table of
// the medians and their ratio to --out (benchmarks/results/training.md, as
// `make bench` runs it).
//
// Usage:
//
//	go run -tags openblas ./benchmarks/torchpeer [--config products,cora] [--rounds 3] [--steps 20]
//
// The configurations are issue 14's: "products", trainbench's graph (a
// products-like planted partition of --nodes vertices, 100 features, 47
// classes) with a 3-layer GraphSAGE, hidden 256, fanouts 15,10,5, batch
// 1024; and "cora" (../shared/data/cora.npz) with 2 layers, hidden 64,
// fanouts 25,10, batch 64. Both use dropout 0.5 and Adam with lr 0.01. The
// peer needs python3 with torch (Debian's python3-torch); without it the
// table has bulksample's figures alone and says why.
package main
