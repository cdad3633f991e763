package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/procstat"
)

// config is the parsed command line.
type config struct {
	scale, edgeFactor int
	seed              uint64
	threads           int
	reps              int
	dir               string
	out               string
	phase             string
	keep              bool
}

// result is what one phase process reports, as one JSON line on stdout.
type result struct {
	Phase        string  `json:"phase"`
	Seconds      float64 `json:"seconds"`
	WriteNPZ     float64 `json:"write_npz_seconds,omitempty"`
	WriteNative  float64 `json:"write_native_seconds,omitempty"`
	Nodes        int     `json:"nodes"`
	Edges        int64   `json:"edges"`
	Generated    int64   `json:"generated_edges,omitempty"`
	Threads      int     `json:"threads"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	CPUSeconds   float64 `json:"cpu_seconds"` // user+system time of the timed part
	Checksum     int64   `json:"checksum"`    // sum of row lengths of a few rows: proves the load is usable
	// Cost is what the timed part cost the process; the writes' are apart.
	Cost            procstat.Cost `json:"cost"`
	WriteNPZCost    procstat.Cost `json:"write_npz_cost"`
	WriteNativeCost procstat.Cost `json:"write_native_cost"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "databench: %v\n", err)
		}
		os.Exit(1)
	}
}

func parse(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("databench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &config{}
	fs.IntVar(&c.scale, "scale", 22, "R-MAT scale (log2 of the vertex count)")
	fs.IntVar(&c.edgeFactor, "edge-factor", 16, "R-MAT edge factor")
	fs.Uint64Var(&c.seed, "seed", 1, "R-MAT seed")
	fs.IntVar(&c.threads, "threads", 0, "threads; 0 for GOMAXPROCS")
	fs.IntVar(&c.reps, "reps", 3, "load repetitions (the median is reported)")
	fs.StringVar(&c.dir, "dir", "", "folder for the graph files; default a new temporary folder, removed at the end")
	fs.StringVar(&c.out, "out", filepath.Join("benchmarks", "results", "dataset.md"), "markdown report path")
	fs.StringVar(&c.phase, "phase", "", "internal: run one phase (gen, load-npz, load-native, load-native-checksums, load-native-noverify) and print its JSON")
	fs.BoolVar(&c.keep, "keep", false, "keep the graph files")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case c.scale < 1 || c.scale > 30:
		return nil, fmt.Errorf("-scale %d: want 1 to 30", c.scale)
	case c.edgeFactor < 1:
		return nil, fmt.Errorf("-edge-factor %d: want >= 1", c.edgeFactor)
	case c.reps < 1:
		return nil, fmt.Errorf("-reps %d: want >= 1", c.reps)
	case c.threads < 0:
		return nil, fmt.Errorf("-threads %d: want >= 0", c.threads)
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if c.phase != "" {
		r, err := runPhase(c)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(r)
	}
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "databench"); err != nil {
			return err
		}
		if !c.keep {
			defer os.RemoveAll(c.dir)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	phase := func(name string) (result, error) {
		fmt.Fprintf(stderr, "databench: %s (scale %d)\n", name, c.scale)
		cmd := exec.CommandContext(ctx, self, "-phase", name, "-scale", strconv.Itoa(c.scale),
			"-edge-factor", strconv.Itoa(c.edgeFactor), "-seed", strconv.FormatUint(c.seed, 10),
			"-threads", strconv.Itoa(c.threads), "-dir", c.dir)
		cmd.Stderr = stderr
		out, err := cmd.Output()
		if err != nil {
			return result{}, fmt.Errorf("phase %s: %w", name, err)
		}
		var r result
		if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
			return result{}, fmt.Errorf("phase %s: bad output %q: %w", name, out, err)
		}
		return r, nil
	}
	gen, err := phase("gen")
	if err != nil {
		return err
	}
	loads := map[string]result{}
	for _, name := range []string{"load-npz", "load-native", "load-native-checksums", "load-native-noverify"} {
		var rs []result
		for range c.reps {
			r, err := phase(name)
			if err != nil {
				return err
			}
			if r.Checksum != gen.Checksum || r.Edges != gen.Edges {
				return fmt.Errorf("phase %s loaded %d edges (checksum %d), generated %d (%d)", name, r.Edges, r.Checksum, gen.Edges, gen.Checksum)
			}
			rs = append(rs, r)
		}
		slices.SortFunc(rs, func(a, b result) int { return cmp.Compare(a.Seconds, b.Seconds) })
		loads[name] = rs[len(rs)/2]
	}
	report := markdown(c, gen, loads) + loadAverage()
	if err := os.MkdirAll(filepath.Dir(c.out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(c.out, []byte(report), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, report)
	return nil
}

func (c *config) paths() (npz, native string) {
	base := filepath.Join(c.dir, fmt.Sprintf("rmat-s%d-e%d", c.scale, c.edgeFactor))
	return base + ".npz", base + ".bsn"
}

// runPhase runs one phase in this process.
func runPhase(c *config) (result, error) {
	npz, native := c.paths()
	threads := c.threads
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	r := result{Phase: c.phase, Threads: threads}
	var m procstat.Meter
	m.Begin()
	cpu0 := benchutil.CPUSeconds()
	start := time.Now()
	var d *dataset.Dataset
	switch c.phase {
	case "gen":
		a, err := dataset.RMAT(dataset.RMATOptions{Scale: c.scale, EdgeFactor: c.edgeFactor, Seed: c.seed, Threads: c.threads})
		if err != nil {
			return r, err
		}
		r.Seconds = time.Since(start).Seconds()
		r.CPUSeconds = benchutil.CPUSeconds() - cpu0
		r.Cost = m.End("gen")
		r.Generated = int64(c.edgeFactor) << c.scale
		d = &dataset.Dataset{Name: "rmat", Adj: a}
		t := time.Now()
		if err := dataset.Save(npz, d); err != nil {
			return r, err
		}
		r.WriteNPZ = time.Since(t).Seconds()
		r.WriteNPZCost = m.End("write-npz")
		t = time.Now()
		if err := dataset.Save(native, d); err != nil {
			return r, err
		}
		r.WriteNative = time.Since(t).Seconds()
		r.WriteNativeCost = m.End("write-native")
	case "load-npz", "load-native", "load-native-checksums", "load-native-noverify":
		p := npz
		if c.phase != "load-npz" {
			p = native
		}
		level := map[string]dataset.VerifyLevel{
			"load-native-checksums": dataset.VerifyChecksums, "load-native-noverify": dataset.VerifyNone,
		}[c.phase]
		var err error
		d, err = dataset.Load(p, &dataset.LoadOptions{Verify: level, Threads: c.threads})
		if err != nil {
			return r, err
		}
		r.Seconds = time.Since(start).Seconds()
		r.CPUSeconds = benchutil.CPUSeconds() - cpu0
		r.Cost = m.End("load")
	default:
		return r, fmt.Errorf("unknown -phase %q", c.phase)
	}
	r.Nodes, r.Edges = d.NumNodes(), d.Adj.NNZ()
	for i := 0; i < d.NumNodes(); i += max(d.NumNodes()/64, 1) {
		r.Checksum += int64(d.Adj.RowNNZ(i))
	}
	r.PeakRSSBytes = procstat.PeakRSS()
	return r, nil
}

// loadAverage returns a note with the machine's load average, which tells
// how far the wall-clock times were stretched by other processes.
func loadAverage() string {
	f, ok := benchutil.LoadAverages()
	if !ok {
		return ""
	}
	return fmt.Sprintf("\nLoad average at the end (1, 5, 15 min): %s %s %s on %d CPUs; on a shared machine the CPU seconds are the steadier figure.\n",
		f[0], f[1], f[2], runtime.NumCPU())
}

func mib(b int64) string {
	if b < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func markdown(c *config, gen result, loads map[string]result) string {
	var b strings.Builder
	npz, native := loads["load-npz"], loads["load-native"]
	sums, noverify := loads["load-native-checksums"], loads["load-native-noverify"]
	fmt.Fprintf(&b, "# Dataset I/O: R-MAT scale %d, edge factor %d\n\n", c.scale, c.edgeFactor)
	fmt.Fprintf(&b, "%d vertices, %d generated edges, %d stored entries after symmetrisation and deduplication; "+
		"%d threads (GOMAXPROCS %d), %s/%s, %s. Each phase is its own process; loads are the median of %d runs "+
		"with the files in the page cache.\n\n",
		gen.Nodes, gen.Generated, gen.Edges, gen.Threads, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), c.reps)
	b.WriteString(benchutil.CostLegend + "\n")
	b.WriteString("| phase | seconds | CPU seconds | peak RSS | rate |" + benchutil.CostColumns + "\n|---|---:|---:|---:|---:|" + benchutil.CostRule + "\n")
	fmt.Fprintf(&b, "| generate (R-MAT + CSR build) | %.3f | %.3f | %s | %.2f M generated edges/s; %.2f M per CPU-second |%s\n",
		gen.Seconds, gen.CPUSeconds, mib(gen.PeakRSSBytes), float64(gen.Generated)/gen.Seconds/1e6, float64(gen.Generated)/gen.CPUSeconds/1e6, benchutil.CostCells(gen.Cost))
	fmt.Fprintf(&b, "| write scipy .npz | %.3f | | (in generate) | %.2f M entries/s |%s\n", gen.WriteNPZ, float64(gen.Edges)/gen.WriteNPZ/1e6, benchutil.CostCells(gen.WriteNPZCost))
	fmt.Fprintf(&b, "| write native | %.3f | | (in generate) | %.2f M entries/s |%s\n", gen.WriteNative, float64(gen.Edges)/gen.WriteNative/1e6, benchutil.CostCells(gen.WriteNativeCost))
	for _, l := range []struct {
		name string
		r    result
	}{
		{"load scipy .npz", npz},
		{"load native, verified: CSR structure (the default)", native},
		{"load native, verified: structure + CRC-32C of every array (--verify checksums)", sums},
		{"load native, -no-verify (mmap only)", noverify},
	} {
		fmt.Fprintf(&b, "| %s | %.4f | %.4f | %s | %.1f M entries/s |%s\n", l.name, l.r.Seconds, l.r.CPUSeconds, mib(l.r.PeakRSSBytes), float64(l.r.Edges)/l.r.Seconds/1e6, benchutil.CostCells(l.r.Cost))
	}
	fmt.Fprintf(&b, "\nLoad time ratio npz / native: **%.1fx** with the default structure check (%.1fx in CPU time; "+
		"it reads the row offsets and column ids), **%.1fx** with every checksum too (%.1fx in CPU time; it reads every byte), "+
		"**%.0fx** without verification (mmap defers reading pages to first use).\n",
		npz.Seconds/native.Seconds, npz.CPUSeconds/native.CPUSeconds, npz.Seconds/sums.Seconds, npz.CPUSeconds/sums.CPUSeconds,
		npz.Seconds/noverify.Seconds)
	return b.String()
}
