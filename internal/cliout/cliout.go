// Package cliout is the schema of the command line's --json summaries
// (cmd/bulksample), declared once: the command writes these types, and
// the benchmarks that run the command decode its output into them rather
// than restating the fields they read. A field's JSON name is the
// contract; adding a field is compatible, renaming one is not.
package cliout

import "github.com/bulksample/bulksample/internal/procstat"

// Sample is the --json object of `bulksample sample` (one process).
type Sample struct {
	Graph        string `json:"graph"`
	Vertices     int    `json:"vertices"`
	Edges        int64  `json:"edges"`
	Sampler      string `json:"sampler"`
	LadiesMatrix string `json:"ladies_matrix,omitempty"` // ladies only: normalized or raw
	Frontier     string `json:"frontier"`
	Fanouts      []int  `json:"fanouts"`
	Batch        int    `json:"batch"`
	Bulk         int    `json:"bulk"`
	Threads      int    `json:"threads"`
	Seeds        int    `json:"seeds"`
	Minibatches  int    `json:"minibatches"`
	Bulks        int    `json:"bulks"`
	// SampledEdges is the edges of one pass over the seeds (every pass
	// samples the same ones).
	SampledEdges int64 `json:"sampled_edges"`
	// Seconds and SEPS are the headline: the median of the warm passes
	// when --reps is 2 or more, else the one (cold) pass.
	Seconds float64 `json:"seconds"`
	SEPS    float64 `json:"seps"`
	// Reps is the passes over the seeds (--reps); Warm says whether Seconds
	// and SEPS are those of warm passes. ColdSeconds and ColdSEPS are the
	// first pass's, which pays for fresh memory and empty buffers;
	// PassSeconds and PassCosts give every pass, in order.
	Reps         int             `json:"reps,omitempty"`
	Warm         bool            `json:"warm"`
	ColdSeconds  float64         `json:"cold_seconds,omitempty"`
	ColdSEPS     float64         `json:"cold_seps,omitempty"`
	PassSeconds  []float64       `json:"pass_seconds,omitempty"`
	PassCosts    []procstat.Cost `json:"pass_costs,omitempty"`
	LoadSeconds  float64         `json:"load_seconds"`
	Device       string          `json:"device,omitempty"` // --device cuda: the GPU's name
	Digest       string          `json:"digest,omitempty"`
	PeakRSSBytes int64           `json:"peak_rss_bytes"`
	Version      string          `json:"version"`
	// Phases is what each phase cost the process: load, setup (plan and
	// sampler), sample (the sampler's calls only, every pass) and digest.
	Phases procstat.Phases `json:"phases"`
}

// Spread is one figure over the ranks: its smallest, median and
// largest value.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// RankSpread is the spread over the ranks of what they did while
// sampling. Work is a rank's own sampling (selection and extraction of its
// minibatches, and for push the handling of the picks), its time in the
// sampler less its exchange; exchange is the time in its own rounds (their
// waits, transfers and the serving of the column's requests in them); idle
// is the time it waited in Drain after its own work for the other ranks of
// its column (the serving in Drain is in exchange_seconds' companions).
type RankSpread struct {
	WorkSeconds     Spread `json:"work_seconds"`
	SampledEdges    Spread `json:"sampled_edges"`
	SampleSeconds   Spread `json:"sample_seconds"`
	ExchangeSeconds Spread `json:"exchange_seconds"`
	IdleSeconds     Spread `json:"idle_seconds"`
	// OverlapHiddenSeconds is the part of exchange_seconds that ran while
	// the rank worked (--overlap): its push rounds run one batch ahead.
	// OverlapBatches counts those batches, summed over the ranks.
	OverlapHiddenSeconds *Spread `json:"overlap_hidden_seconds,omitempty"`
	OverlapBatches       int64   `json:"overlap_batches,omitempty"`
	// WorkMaxOverMean is the busiest rank's work over the mean.
	WorkMaxOverMean float64 `json:"work_max_over_mean"`
}

// Memory is the spread over the ranks of the bytes of the graph a rank
// holds (its block of rows, or the whole graph when replicated: row
// offsets, column ids and, when the sampler reads them (weighted, or a
// layer-wise method), values; with LADIES' normalised matrix, also that
// copy) and of its largest sample (a bulk's arrays), and of its peak
// resident set over their sum.
type Memory struct {
	GraphBytes            Spread `json:"graph_bytes"`
	SampleBytes           Spread `json:"sample_bytes"`
	RSSOverGraphAndSample Spread `json:"rss_over_graph_and_sample"`
}

// Exchange is what the ranks' row exchanges did in the rounds of one
// kind: counts and bytes summed over the ranks, times as the mean over the
// ranks and the most of one rank (dist.RoundStats).
type Exchange struct {
	Rounds             int64   `json:"rounds"`
	IDs                int64   `json:"ids"`
	Items              int64   `json:"items"`
	Served             int64   `json:"served"`
	BytesSent          int64   `json:"bytes_sent"`
	WaitSeconds        float64 `json:"wait_seconds"`
	WaitSecondsMax     float64 `json:"wait_seconds_max"`
	TransferSeconds    float64 `json:"transfer_seconds"`
	TransferSecondsMax float64 `json:"transfer_seconds_max"`
	ServeSeconds       float64 `json:"serve_seconds"`
	ServeSecondsMax    float64 `json:"serve_seconds_max"`
}

// FetchLayer is how one layer was fetched, summed over the ranks and
// bulks: pull and push rounds, and with --fetch auto the bytes the model
// predicted for either choice.
type FetchLayer struct {
	Pull           int64   `json:"pull"`
	Push           int64   `json:"push"`
	ModelPullBytes float64 `json:"model_pull_bytes,omitempty"`
	ModelPushBytes float64 `json:"model_push_bytes,omitempty"`
}

// Traffic is one communication phase's traffic in a distributed summary:
// summed over the ranks, and of the busiest rank.
type Traffic struct {
	BytesSent    int64 `json:"bytes_sent"`
	Messages     int64 `json:"messages"`
	BytesSentMax int64 `json:"bytes_sent_max"`
	MessagesMax  int64 `json:"messages_max"`
	// The time in the phase's calls, the wait for the other ranks
	// included: mean over the ranks and the most of one rank (train only).
	WaitSeconds    float64 `json:"wait_seconds,omitempty"`
	WaitSecondsMax float64 `json:"wait_seconds_max,omitempty"`
}

// DistSample is the --json object of a distributed `bulksample sample`:
// the one-process summary and the distribution.
type DistSample struct {
	Sample
	Ranks       int                `json:"ranks"`
	Replication int                `json:"replication"`
	Fetch       string             `json:"fetch"`
	Overlap     bool               `json:"overlap"`    // a node-wise sampler overlaps its push rounds with its work (--overlap)
	BlockOnly   bool               `json:"block_only"` // each rank read only its block of rows (native, scipy .npz or OGB)
	Traffic     map[string]Traffic `json:"traffic"`    // bytes and messages per communication phase
	PeakRSSMax  int64              `json:"peak_rss_max"`
	// PeakRSS is the spread of the ranks' peak resident sets; Memory
	// sets them beside what a rank must hold, its graph and its sample.
	PeakRSS Spread  `json:"peak_rss"`
	Memory  *Memory `json:"memory,omitempty"`
	// RankSpread, Exchange and FetchLayers say where the ranks' time went:
	// the spread over the ranks of their work, sampled edges and waits; the
	// row exchange's rounds by kind (pull, degrees, push, drain: rounds,
	// bytes, wait, transfer and serve times); and how each layer was
	// fetched (--fetch auto's choices).
	RankSpread  *RankSpread         `json:"rank_spread,omitempty"`
	Exchange    map[string]Exchange `json:"exchange,omitempty"`
	FetchLayers []FetchLayer        `json:"fetch_layers,omitempty"`
	// DigestSeconds is rank 0's time gathering and hashing the samples
	// (--digest), outside the timed sampling.
	DigestSeconds float64 `json:"digest_seconds,omitempty"`
}
