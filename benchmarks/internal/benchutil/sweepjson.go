package benchutil

import "strconv"

// SweepSummary is the --json object of a sweep through the CLI: where and
// how it ran, and its rows with every round's figures, so that a table
// measured on another machine (the 16-core one of issue 14) can be read
// back and compared without parsing its markdown.
type SweepSummary struct {
	Program string  `json:"program"`
	Machine Machine `json:"machine"`
	Load    string  `json:"load_at_start"`
	// Command is the CLI command of a row, with T and K for its threads
	// and k.
	Command string `json:"command"`
	// PinnedCPUs gives, per thread count, the CPUs its processes ran on;
	// empty when they were not pinned.
	PinnedCPUs map[string]string `json:"pinned_cpus,omitempty"`
	Rows       any               `json:"rows"`
}

// SweepJSONRow is the part of a sweep's JSON row that every sweep has: per
// round, the warm SEPS and the within-round ratios of RoundRatios (nil
// where the table shows "-"). A program embeds it in its own row type,
// beside its own per-round figures.
type SweepJSONRow struct {
	Threads  int       `json:"threads"`
	K        int       `json:"k"`
	BestK    bool      `json:"best_k"`
	WarmSEPS []float64 `json:"warm_seps"`
	VsBest   []float64 `json:"vs_best_k"`
	Eff      []float64 `json:"efficiency"`
	EffBest  []float64 `json:"efficiency_vs_1_thread_best"`
}

// JSONRow returns row j of the sweep whose ratios are q.
func (q SweepRatios) JSONRow(j int, r SweepRow) SweepJSONRow {
	return SweepJSONRow{Threads: r.Threads, K: r.K, BestK: q.Best[r.Threads] == j, WarmSEPS: r.Warm,
		VsBest: q.VsBest[j], Eff: q.Eff[j], EffBest: q.EffBest[j]}
}

// CPULists returns, per thread count of threads, the CPUs a process of
// that many threads runs on; nil for a nil Pinner.
func (p *Pinner) CPULists(threads []int) map[string]string {
	if p == nil {
		return nil
	}
	m := map[string]string{}
	for _, t := range threads {
		m[strconv.Itoa(t)] = p.CPUList(t)
	}
	return m
}
