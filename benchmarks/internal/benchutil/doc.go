// Package benchutil holds what the benchmark programs under benchmarks/ share:
// the process entry point and usage-error handling of their command lines,
// integer-list flags, medians, a description of the machine, CPU time and
// load average, and writing the markdown report and the --json summary, with
// the per-repetition costs (page faults, heap allocation, GC, peak RSS) that
// every report shows next to its rows: CostColumns, MedianCost, CostCells
// (measuring them is internal/procstat's, shared with the CLI); and the
// rounds and within-round ratios of the sweeps through the CLI (SweepOrder,
// RoundRatios, MedianCI) and their verdict on the largest bulk size
// (GoalVerdict), and the pinning of a sweep's processes to as many cores as
// threads (Pinner).
package benchutil
