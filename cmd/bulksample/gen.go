package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
)

// genSummary is the JSON object of `bulksample gen`.
type genSummary struct {
	Kind         string  `json:"kind"`
	Out          string  `json:"out"`
	Nodes        int     `json:"nodes"`
	Edges        int64   `json:"edges"`
	Features     int     `json:"features,omitempty"`
	Classes      int     `json:"classes,omitempty"`
	GenSeconds   float64 `json:"gen_seconds"`
	SaveSeconds  float64 `json:"save_seconds"`
	Threads      int     `json:"threads"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	Version      string  `json:"version"`
	Generated    int64   `json:"generated_edges"`
	EdgesPerSec  float64 `json:"generated_edges_per_second"`
	// Phases is what each phase cost the process: generate and save.
	Phases procstat.Phases `json:"phases"`
	// Relabel and RelabelSeed: the vertex relabelling applied (--relabel).
	Relabel     string `json:"relabel,omitempty"`
	RelabelSeed uint64 `json:"relabel_seed,omitempty"`
	// Under an MPI launcher: the ranks, each one's stored entries (its
	// block of rows), and the largest peak RSS of a rank.
	Ranks      int     `json:"ranks,omitempty"`
	BlockEdges []int64 `json:"block_edges,omitempty"`
	PeakRSSMax int64   `json:"peak_rss_max,omitempty"`
}

const genSynopsis = "rmat|sbm --out PATH [flags]"

// genJob is the parsed command line of `bulksample gen`.
type genJob struct {
	kind    string // rmat, sbm or planted (sbm)
	out     string
	r       dataset.RMATOptions
	rf      relabelFlags
	p       dataset.PlantedPartitionOptions
	threads int
	stall   time.Duration // --stall-timeout, under an MPI launcher
	json    bool
}

func runGen(ctx context.Context, e *env, args []string) error {
	job, fs, err := parseGenFlags(e, args)
	if err != nil {
		return err
	}
	if err := e.startProfile(0, 1); err != nil {
		return err
	}
	s := genSummary{Kind: job.kind, Out: job.out}
	var meter procstat.Meter
	meter.Begin()
	start := time.Now()
	var d *dataset.Dataset
	if job.kind == "rmat" {
		rl, err := job.checkRMAT(fs)
		if err != nil {
			return err
		}
		s.Relabel, s.RelabelSeed = rl.Method, rl.Seed
		bar := e.status(false, "generating R-MAT scale %d, edge factor %d%s", job.r.Scale, job.r.EdgeFactor, map[bool]string{true: ", relabelled by " + rl.Method}[rl.Method != ""])
		defer bar.Finish()
		name := fmt.Sprintf("rmat-s%d-e%d-seed%d", job.r.Scale, job.r.EdgeFactor, job.r.Seed)
		s.Generated = int64(job.r.EdgeFactor) << job.r.Scale
		if !isNPZ(job.out) {
			// By row blocks, the values written without being held.
			re, err := genRMATFile(ctx, e, job.r, rl, job.out, name, job.stall, &meter, &s)
			if err != nil {
				return err
			}
			s.GenSeconds = meter.Phase("generate").Seconds
			s.SaveSeconds = meter.Phase("save").Seconds
			return genReport(re, &s, &meter, job.threads, job.json)
		}
		if d, err = genRMAT(job.r, rl, name); err != nil {
			return err
		}
	} else if d, err = job.planted(e, fs, &s); err != nil {
		return err
	}
	s.GenSeconds = time.Since(start).Seconds()
	notePhase(e.notes(), "gen", "generate", meter.End("generate"))
	if err := ctx.Err(); err != nil {
		return err
	}
	bar := e.status(false, "writing %s", job.out)
	saveStart := time.Now()
	err = dataset.SaveContext(ctx, job.out, d)
	bar.Finish()
	if err != nil {
		return err
	}
	s.SaveSeconds = time.Since(saveStart).Seconds()
	notePhase(e.notes(), "gen", "save", meter.End("save"))
	s.Nodes, s.Edges, s.Features, s.Classes = d.NumNodes(), d.Adj.NNZ(), d.NumFeatures, d.NumClasses
	return genReport(e, &s, &meter, job.threads, job.json)
}

// parseGenFlags parses the command line of `bulksample gen`: the
// generator first, then its flags.
func parseGenFlags(e *env, args []string) (*genJob, *flag.FlagSet, error) {
	job := &genJob{}
	if len(args) > 0 && (args[0] == "rmat" || args[0] == "sbm" || args[0] == "planted") {
		job.kind, args = args[0], args[1:]
	}
	fs, jsonOut := newFlags(e, "gen", genSynopsis,
		"Generates a synthetic graph and writes it (scipy .npz when --out ends in .npz, else native):\n"+
			"  rmat  an R-MAT graph with the Graph500 parameters, symmetrised, without self loops or\n"+
			"        duplicates, vertex ids permuted; identical for any --threads. Under mpirun or srun\n"+
			"        every rank generates its block of rows and writes it into the one --out file (native\n"+
			"        format; its folder shared by the ranks), identical for any number of ranks\n"+
			"  sbm   a labelled planted-partition (degree-corrected stochastic block model) dataset with\n"+
			"        power-law degrees, class-dependent Gaussian features and a split ('planted' is an alias)")
	fs.StringVar(&job.out, "out", "", "output path; required")
	r, p := &job.r, &job.p
	fs.IntVar(&r.Scale, "scale", 16, "rmat: log2 of the number of vertices")
	fs.IntVar(&r.EdgeFactor, "edge-factor", 16, "rmat: generated edges per vertex")
	fs.Float64Var(&r.A, "a", 0.57, "rmat: probability of quadrant a")
	fs.Float64Var(&r.B, "b", 0.19, "rmat: probability of quadrant b")
	fs.Float64Var(&r.C, "c", 0.19, "rmat: probability of quadrant c (d = 1-a-b-c)")
	fs.Float64Var(&r.Noise, "noise", 0, "rmat: per-level noise amplitude (noisy SKG); 0 for none")
	job.rf.add(fs, "rmat: ")
	fs.IntVar(&p.Nodes, "nodes", 100_000, "sbm: number of vertices")
	fs.IntVar(&p.Classes, "classes", 10, "sbm: number of classes")
	fs.Float64Var(&p.AvgDegree, "avg-degree", 15, "sbm: average degree (generated edge ends per vertex)")
	fs.Float64Var(&p.Homophily, "homophily", 0.8, "sbm: probability that an edge stays within its class, in (0, 1]")
	fs.IntVar(&p.Features, "features", 32, "sbm: feature dimension")
	fs.Float64Var(&p.Exponent, "exponent", 2.5, "sbm: power-law exponent of the degrees, > 2")
	fs.Float64Var(&p.Noise, "feature-noise", 3.5, "sbm: standard deviation of the feature noise around the class means")
	fs.StringVar(&p.Split, "split", "", `sbm: split (none, planetoid[:T,V,E], random:a,b,c); "" for the default`)
	seed := fs.Uint64("seed", 1, "seed")
	fs.IntVar(&job.threads, "threads", 0, "threads; 0 for GOMAXPROCS (the output does not depend on it)")
	addStallTimeout(fs, &job.stall, "rmat under mpirun or srun", "the generation of a larger block, a slow shared file system")
	pos, err := parsePositional(fs, args)
	if err != nil {
		return nil, nil, err
	}
	if job.kind == "" && len(pos) > 0 {
		job.kind, pos = pos[0], pos[1:]
	}
	job.json = *jsonOut
	r.Seed, p.Seed, r.Threads, p.Threads = *seed, *seed, job.threads, job.threads
	return job, fs, job.check(fs, pos)
}

// check returns a usage error for a bad command line: a missing or unknown
// generator, an extra argument, a flag of the other generator.
func (job *genJob) check(fs *flag.FlagSet, pos []string) error {
	switch {
	case job.kind == "":
		return usageError(fs, "want a generator, rmat or sbm, as the first argument")
	case job.kind != "rmat" && job.kind != "sbm" && job.kind != "planted":
		return usageError(fs, "unknown generator %q (want rmat or sbm)", job.kind)
	case len(pos) > 0:
		return usageError(fs, "unexpected argument %q", pos[0])
	case job.out == "":
		return usageError(fs, "--out is required")
	case job.threads < 0:
		return usageError(fs, "--threads %d: want >= 0", job.threads)
	case job.stall < 0:
		return usageError(fs, "--stall-timeout %v: want a duration >= 0 (0: none)", job.stall)
	case isSet(fs, "stall-timeout") && (dist.LaunchedSize() == 0 || job.kind != "rmat"):
		return usageError(fs, "--stall-timeout: only for gen rmat under mpirun or srun, whose ranks wait for each other")
	}
	if job.kind != "rmat" {
		if err := checkOneProcess(fs, "gen "+job.kind); err != nil {
			return err
		}
	}
	if err := checkOutputFile(job.out); err != nil {
		return usageError(fs, "--out %v", err)
	}
	// The two generators share one flag set: a flag of the other one would
	// be silently ignored (gen rmat --nodes 1000 makes 2^16 vertices).
	var other string
	fs.Visit(func(f *flag.Flag) {
		gen, _, ok := strings.Cut(f.Usage, ":")
		if ok && other == "" && (gen == "rmat" || gen == "sbm") && gen != genFamily(job.kind) {
			other = fmt.Sprintf("--%s applies to gen %s, not %s", f.Name, gen, job.kind)
		}
	})
	if other != "" {
		return usageError(fs, "%s", other)
	}
	return nil
}

// checkRMAT returns the relabelling of rmat's flags, or a usage error on
// fs for a bad one.
func (job *genJob) checkRMAT(fs *flag.FlagSet) (dataset.RelabelOptions, error) {
	r := job.r
	if r.Scale < 1 || r.Scale > 30 {
		return dataset.RelabelOptions{}, usageError(fs, "--scale %d: want 1 to 30", r.Scale)
	}
	if r.EdgeFactor < 1 {
		return dataset.RelabelOptions{}, usageError(fs, "--edge-factor %d: want >= 1", r.EdgeFactor)
	}
	rl, msg := job.rf.options(isSet(fs, "relabel-seed"), r.Threads)
	if msg == "" && dist.LaunchedSize() > 0 && isNPZ(job.out) {
		msg = fmt.Sprintf("--out %s: under mpirun or srun the ranks write the native format (convert it to .npz after)", job.out)
	}
	if msg == "" {
		msg = genMemoryCheck(job.kind, r, job.p, procstat.TotalMemory(), max(dist.LaunchedSize(), 1))
	}
	if msg != "" {
		return rl, usageError(fs, "%s", msg)
	}
	return rl, nil
}

// genRMAT generates the R-MAT graph of r in memory, relabelled by rl.
func genRMAT(r dataset.RMATOptions, rl dataset.RelabelOptions, name string) (*dataset.Dataset, error) {
	a, err := dataset.RMAT(r)
	if err != nil {
		return nil, err
	}
	d := &dataset.Dataset{Name: name, Adj: a}
	if rl.Method != "" {
		return dataset.Relabel(d, rl)
	}
	return d, nil
}

// planted checks sbm's flags (a usage error on fs) and generates the
// planted-partition dataset, setting s's generated edges.
func (job *genJob) planted(e *env, fs *flag.FlagSet, s *genSummary) (*dataset.Dataset, error) {
	p := job.p
	if flagErr := checkPlantedFlags(p); flagErr != "" {
		return nil, usageError(fs, "%s", flagErr)
	}
	if msg := genMemoryCheck(job.kind, job.r, p, procstat.TotalMemory(), 1); msg != "" {
		return nil, usageError(fs, "%s", msg)
	}
	e.status(false, "generating a planted-partition dataset of %d nodes, %d classes", p.Nodes, p.Classes)
	s.Generated = int64(p.AvgDegree * float64(p.Nodes) / 2)
	return dataset.PlantedPartition(p)
}

// genReport completes s and prints it (under an MPI launcher only rank 0
// has a stdout).
func genReport(e *env, s *genSummary, meter *procstat.Meter, threads int, jsonOut bool) error {
	s.Phases = meter.Phases()
	s.EdgesPerSec = float64(s.Generated) / s.GenSeconds
	s.PeakRSSBytes, s.Threads, s.Version = procstat.PeakRSS(), par.Threads(threads), version()
	fmt.Fprintf(e.stdout, "wrote %s: %d nodes, %d stored edges (%d generated, %.3g/s), %d features, %d classes; generate %.3f s, save %.3f s\n",
		s.Out, s.Nodes, s.Edges, s.Generated, s.EdgesPerSec, s.Features, s.Classes, s.GenSeconds, s.SaveSeconds)
	if s.Ranks > 0 {
		lo, hi := s.BlockEdges[0], s.BlockEdges[0]
		for _, b := range s.BlockEdges {
			lo, hi = min(lo, b), max(hi, b)
		}
		fmt.Fprintf(e.stdout, "%d ranks wrote their blocks: %d to %d stored edges each; largest peak RSS of a rank %s\n",
			s.Ranks, lo, hi, formatBytes(s.PeakRSSMax))
	}
	if jsonOut {
		return writeJSON(e.stdout, s)
	}
	return nil
}

// genMemoryCheck returns a message naming the size flags when the graph
// they ask for cannot fit in total bytes of memory (0 or less: unknown),
// or "". The bound is a lower one, the output alone: 8 bytes (a column
// id and a value) for each of the two stored directions of a generated
// edge, and sbm's float32 features; generating takes more. A --scale 30
// meant as 20 ran out of memory after minutes, ending in the runtime's
// fatal error. Under an MPI launcher each of the ranks rmat runs on holds
// its block alone: a ranks-th of the entries.
func genMemoryCheck(kind string, r dataset.RMATOptions, p dataset.PlantedPartitionOptions, total int64, ranks int) string {
	if total <= 0 {
		return ""
	}
	var need float64
	var flags string
	if kind == "rmat" {
		need = 16 * float64(r.EdgeFactor) * math.Exp2(float64(r.Scale)) / float64(ranks)
		flags = fmt.Sprintf("--scale %d --edge-factor %d", r.Scale, r.EdgeFactor)
		if ranks > 1 {
			flags += fmt.Sprintf(" on %d ranks: a rank's block", ranks)
		}
	} else {
		need = 8*p.AvgDegree*float64(p.Nodes) + 4*float64(p.Nodes)*float64(p.Features)
		flags = fmt.Sprintf("--nodes %d --avg-degree %g --features %d", p.Nodes, p.AvgDegree, p.Features)
	}
	if need <= float64(total) {
		return ""
	}
	return fmt.Sprintf("%s: the graph alone needs %.1f GiB, more than this machine's %.1f GiB of memory", flags, need/(1<<30), float64(total)/(1<<30))
}

// genFamily returns the prefix of the help of kind's own flags: sbm for
// its alias planted.
func genFamily(kind string) string {
	if kind == "planted" {
		return "sbm"
	}
	return kind
}

// checkPlantedFlags returns a message naming the first bad sbm flag, or "".
func checkPlantedFlags(p dataset.PlantedPartitionOptions) string {
	switch {
	case p.Nodes < 2:
		return fmt.Sprintf("--nodes %d: want >= 2", p.Nodes)
	case p.Classes < 2 || p.Classes > p.Nodes:
		return fmt.Sprintf("--classes %d: want 2 to --nodes", p.Classes)
	case !(p.AvgDegree > 0 && p.AvgDegree <= math.MaxFloat64):
		return fmt.Sprintf("--avg-degree %g: want a finite value > 0", p.AvgDegree)
	case !(p.Homophily > 0 && p.Homophily <= 1):
		return fmt.Sprintf("--homophily %g: want a value in (0, 1]", p.Homophily)
	case p.Features < 1:
		return fmt.Sprintf("--features %d: want >= 1", p.Features)
	case !(p.Exponent > 2 && p.Exponent <= math.MaxFloat64):
		return fmt.Sprintf("--exponent %g: want a finite value > 2", p.Exponent)
	case !(p.Noise > 0 && p.Noise <= math.MaxFloat64):
		return fmt.Sprintf("--feature-noise %g: want a finite value > 0", p.Noise)
	}
	return ""
}
