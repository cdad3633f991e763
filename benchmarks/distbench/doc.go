// Command distbench measures the communication of distributed training
// (docs/design.md section 4) under a real MPI launcher. Sampling: `bulksample
// sample` on --np ranks of mpirun, for each replication factor c and each
// of pull, push and a replicated graph, on one R-MAT graph, compared with a
// cost model computed from the same sample's frontier sizes and degrees.
// Features (features.go): the program itself on --np ranks, gathering the
// input features of one epoch's minibatches of a planted-partition graph
// through featurex.Dist for each c, per minibatch, per bulk and with the
// hot-vertex cache, compared with the feature cost model (costmodel.go),
// which then predicts the feature exchange of ogbn-papers100M at p = 128.
// Each feature row that exchanges is measured --feature-repeats times, the
// rows of each repetition in an order of their own, and compared by medians
// (repeats.go); --bind core gives every rank a core of its own, and
// --bind cpus:LIST chooses which ranks share a CPU when there are more
// ranks than CPUs (placement.go).
// It writes a markdown report to --out (benchmarks/results/dist.md, as
// `make bench` runs it), the feature section after the sampling one.
//
// Usage:
//
//	go run -tags mpi ./benchmarks/distbench --bulksample bin/bulksample [--scale 22] [--np 4]
//	go run -tags mpi ./benchmarks/distbench --parts features [--feature-nodes 2449029] [--feature-repeats 5]
//	go run -tags mpi ./benchmarks/distbench --parts features --np 2 --replication 1,2 --bind core
//	go run -tags mpi ./benchmarks/distbench --parts features --replication 2 --bind cpus:0,0,1,1
//
// # Cost model of sampling
//
// A rank samples its run of k/p minibatches of each bulk. At layer l let
// N_l be its expanded frontier rows (one per minibatch and vertex), D_l the
// distinct vertices among them, and q = p/c the ranks of its process
// column, which own one row block each: a random vertex is remote with
// probability 1 - 1/q = 1 - c/p (R-MAT ids are permuted). In 4-byte words,
// summing what a rank sends as requester and as owner (equal in
// expectation):
//
//	pull: (1 - c/p) · Σ_l (2·D_l + Σ_{v∈D_l} deg v)              ids, lengths, rows
//	push: (1 - c/p) · Σ_l (3·N_l + Σ_{rows} min(s_l, deg v))     (id, minibatch), counts, picks
//
// plus a header of 12 words (6 int64) to each of the q-1 others per round (L rounds
// and one closing round per bulk). A replicated graph sends nothing.
//
// # Cost model of the feature exchange
//
// Per rank and epoch, with X the distinct input rows over its exchanges,
// h the fraction the hot-vertex cache holds, E its exchanges and f the
// features (featureTraffic in costmodel.go):
//
//	bytes   = (1 - c/p) · (1 - h) · X · (4f + 4) + 16 · (q - 1) · E
//	seconds = 2 · E · α + bytes / β
//
// for the id and row rounds of its exchanges: a Hockney network, α seconds
// per round and β bytes per second per rank, measured on the column
// communicator in the same run by plain all-to-alls interleaved with its
// exchanges (probe.go): α and β are the line through the mean times of
// uniform all-to-alls of the exchange's id message and of its row message
// per pair. The benchmark validates the transfers of the id and row rounds,
// each timed from a barrier so that the wait for the column's slowest
// rank, which is the skew of the work between exchanges and not
// communication, is left out and reported apart. The status round (the
// third, 16 bytes per pair) is mostly that wait: the papers100M prediction
// counts it (3 · E · α), the validation does not.
package main
