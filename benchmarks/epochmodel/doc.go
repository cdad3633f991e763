// Command epochmodel predicts an epoch of data-parallel GraphSAGE training
// on ogbn-papers100M at p ranks (the 128) for each replication
// factor c, from the whole-epoch cost model of
// benchmarks/internal/costmodel (PredictEpoch): sampling, its push
// exchanges, the feature exchange, the compute of the minibatches and the
// gradient all-reduce, every phase in turn and overlapped by the depth-2
// pipeline.
//
// The compute rates of a CPU rank are measured here, on this machine: a
// products-shaped planted-partition graph (the workload of trainbench and
// torchpeer) is trained for an epoch by train.Trainer without the pipeline,
// which gives the seconds of forward + backward + update per minibatch and
// the sampler's throughput (SEPS); the FLOPs of that epoch's mean minibatch
// (costmodel.SAGEFlops, from the shapes of its blocks) turn the step time
// into an effective FLOP rate, and the papers100M minibatch's FLOPs into
// its step time. A GPU rank's rates are stated assumptions (flags): an
// achieved FLOP rate for the GEMMs, an achieved memory bandwidth for the
// aggregations and a sampler throughput. No GPU is measured.
//
// It appends a markdown section to --out (benchmarks/results/dist.md, as
// `make bench` runs it).
//
// Usage:
//
//	go run -tags openblas ./benchmarks/epochmodel [--nodes 150000] [--rounds 2] [--out FILE]
package main
