package benchutil

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/internal/stats"
)

// Main runs a benchmark program: run gets the command-line arguments, a
// context cancelled by SIGINT or SIGTERM, and the standard streams, and
// returns the exit code, with which the process then exits.
func Main(run func(ctx context.Context, args []string, stdout, stderr io.Writer) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// NewFlags returns a flag set for program name that reports errors to
// stderr and whose usage prints "usage: COMMAND [flags]", the description and
// the flags.
func NewFlags(name, command, description string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [flags]\n\n%s\n\nflags:\n", command, description)
		fs.PrintDefaults()
	}
	return fs
}

// ErrUsage marks a command-line error already reported with the usage.
var ErrUsage = errors.New("usage error")

// ParseFlags parses args into fs. It returns flag.ErrHelp for --help and
// ErrUsage for a bad flag (which the flag package has already reported) or
// an argument after the flags (which it reports: the programs take flags
// only).
func ParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return ErrUsage
	}
	if fs.NArg() > 0 {
		return UsageError(fs, "unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// ForwardFlags returns the flags of the parsed fs that its command line
// set, as "-name=value" arguments in fs's (lexical) order, leaving out the
// flags named in except. A program that runs itself again (gatherbench
// --pin, one pinned process per thread count) passes the user's choices on
// with it, a flag added later included, and sets the ones in except
// itself.
func ForwardFlags(fs *flag.FlagSet, except ...string) []string {
	var args []string
	fs.Visit(func(f *flag.Flag) {
		if !slices.Contains(except, f.Name) {
			args = append(args, "-"+f.Name+"="+f.Value.String())
		}
	})
	return args
}

// UsageError prints "NAME: message" and the usage of fs to its output and
// returns ErrUsage.
func UsageError(fs *flag.FlagSet, format string, a ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return ErrUsage
}

// ExitCode is the exit code of a program whose command line failed to parse
// with err: 0 for --help (flag.ErrHelp), 2 for anything else.
func ExitCode(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// Fail prints "PROGRAM: err" to stderr and returns 1, the exit code of a
// run that failed after its command line parsed.
func Fail(stderr io.Writer, program string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", program, err)
	return 1
}

// ParseInts parses a comma-separated list of integers, each at least lo.
func ParseInts(s string, lo int) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < lo {
			return nil, fmt.Errorf("%q is not an integer >= %d", f, lo)
		}
		out = append(out, v)
	}
	return out, nil
}

// JoinInts writes x as a comma-separated list, the form ParseInts reads.
func JoinInts(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// Machine describes where a benchmark ran.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"` // logical CPUs (runtime.NumCPU)
	GOMAXPROCS int    `json:"gomaxprocs"`
	Threads    int    `json:"threads"`
	Go         string `json:"go"`
	Date       string `json:"date"`
}

// ThisMachine describes this machine now, for a run with threads threads.
func ThisMachine(threads int) Machine {
	return Machine{CPU: CPUModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Threads: threads, Go: runtime.Version(), Date: time.Now().UTC().Format("2006-01-02 15:04 MST")}
}

// Today returns the date in UTC as YYYY-MM-DD, for the reports' headers.
func Today() string { return time.Now().UTC().Format("2006-01-02") }

// CPUModel returns the first "model name" of /proc/cpuinfo, or a note
// naming the architecture where there is none.
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU (" + runtime.GOARCH + ")"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU (" + runtime.GOARCH + ")"
}

// LoadAverages returns the 1-, 5- and 15-minute load averages as the kernel
// writes them in /proc/loadavg, or ok false where they are not available.
func LoadAverages() (avg [3]string, ok bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return avg, false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return avg, false
	}
	return [3]string{f[0], f[1], f[2]}, true
}

// LoadAveragesText returns the three load averages separated by spaces, as
// a report states them, or "unknown" where they are not available.
func LoadAveragesText() string {
	avg, ok := LoadAverages()
	if !ok {
		return "unknown"
	}
	return strings.Join(avg[:], " ")
}

// CPUSeconds returns the user and system CPU time of the process so far,
// all threads together, or NaN where getrusage fails.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// WriteJSON writes v as a single line of JSON to w.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON summary: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Report is a program's output: a markdown report and an optional JSON
// summary.
type Report struct {
	Program string // name prefixed to the line announcing the file
	Path    string // file for Text; "" for none
	Append  bool   // append Text to Path instead of replacing the file
	Text    string // the markdown report
	Summary any    // the --json object; nil for none
}

// Write writes r.Text to the file r.Path (unless it is empty), announcing it
// on stderr, then to stdout, then, unless r.Summary is nil, r.Summary as one
// JSON line on stdout.
func (r Report) Write(stdout, stderr io.Writer) error {
	if r.Path != "" {
		if err := writeFile(r.Path, r.Text, r.Append); err != nil {
			return fmt.Errorf("write --out: %w", err)
		}
		fmt.Fprintf(stderr, "%s: wrote %s\n", r.Program, r.Path)
	}
	fmt.Fprint(stdout, r.Text)
	if r.Summary != nil {
		return WriteJSON(stdout, r.Summary)
	}
	return nil
}

// writeFile writes text to path, or appends it when appendTo is set.
func writeFile(path, text string, appendTo bool) error {
	if !appendTo {
		return os.WriteFile(path, []byte(text), 0o644)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CostColumns is the header of the columns that CostCells fills: the costs
// that hide inside a timed repetition (procstat.Cost), reported next to every
// benchmark row so that a figure that moves can be explained. The cells are
// the medians over a row's repetitions (peak RSS: the largest).
const CostColumns = " CPU s | minor faults | kernel s | alloc MiB | GC cycles | GC CPU s | GC pause ms | peak RSS MiB |"

// CostRule is the markdown alignment row of CostColumns.
const CostRule = "--:|--:|--:|--:|--:|--:|--:|--:|"

// CostLegend is a paragraph explaining CostColumns, for the reports.
const CostLegend = "The cost columns say what one timed repetition cost the process (internal/procstat): " +
	"CPU time of all threads, minor page faults (first touches of fresh memory: 11-22 µs each on the " +
	"shared VMs, docs/perf-notes.md) and the kernel time they mostly account for, bytes allocated " +
	"on the Go heap, GC cycles, the runtime's estimate of GC CPU time, GC pauses, and the peak resident " +
	"set at its end. Where a row has several repetitions, each is their median (peak RSS: the largest).\n"

// MedianCost returns the per-field median of the costs (the mean of the
// middle two for an even count) and the largest peak RSS, or the zero Cost
// for none.
func MedianCost(costs []procstat.Cost) procstat.Cost {
	if len(costs) == 0 {
		return procstat.Cost{}
	}
	med := func(f func(procstat.Cost) float64) float64 {
		x := make([]float64, len(costs))
		for i, c := range costs {
			x[i] = f(c)
		}
		return stats.Median(x)
	}
	m := procstat.Cost{
		Seconds:        med(func(c procstat.Cost) float64 { return c.Seconds }),
		CPUSeconds:     med(func(c procstat.Cost) float64 { return c.CPUSeconds }),
		SysSeconds:     med(func(c procstat.Cost) float64 { return c.SysSeconds }),
		MinorFaults:    int64(math.Round(med(func(c procstat.Cost) float64 { return float64(c.MinorFaults) }))),
		MajorFaults:    int64(math.Round(med(func(c procstat.Cost) float64 { return float64(c.MajorFaults) }))),
		AllocBytes:     int64(math.Round(med(func(c procstat.Cost) float64 { return float64(c.AllocBytes) }))),
		GCCycles:       int64(math.Round(med(func(c procstat.Cost) float64 { return float64(c.GCCycles) }))),
		GCPauseSeconds: med(func(c procstat.Cost) float64 { return c.GCPauseSeconds }),
		GCCPUSeconds:   med(func(c procstat.Cost) float64 { return c.GCCPUSeconds }),
		PeakRSSBytes:   -1,
	}
	for _, c := range costs {
		m.PeakRSSBytes = max(m.PeakRSSBytes, c.PeakRSSBytes)
	}
	return m
}

// CostCells returns the cells of CostColumns for c, each followed by "|".
func CostCells(c procstat.Cost) string {
	rss := "-"
	if c.PeakRSSBytes >= 0 {
		rss = strconv.FormatInt(c.PeakRSSBytes>>20, 10)
	}
	faults := strconv.FormatInt(c.MinorFaults, 10)
	if c.MajorFaults > 0 {
		faults += fmt.Sprintf(" (+%d major)", c.MajorFaults)
	}
	return fmt.Sprintf(" %.3g | %s | %.3g | %.1f | %d | %.3g | %.2f | %s |", c.CPUSeconds, faults, c.SysSeconds,
		float64(c.AllocBytes)/(1<<20), c.GCCycles, c.GCCPUSeconds, c.GCPauseSeconds*1e3, rss)
}

// RunJSON runs cmd, a bulksample command with --json, and decodes the JSON
// summary it prints last on standard output into a new T. A failed command's
// error carries its standard error.
func RunJSON[T any](cmd *exec.Cmd) (*T, error) {
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	v := new(T)
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), v); err != nil {
		return nil, fmt.Errorf("the last line is not the JSON summary: %v\n%s", err, out)
	}
	return v, nil
}

// GenRMAT writes the R-MAT graph of `bulksample gen rmat` (scale, edge
// factor, seed; an edgeFactor of 0 leaves the CLI's default) with the
// bulksample binary cli into a new temporary directory, as r<scale>.bsn,
// and returns its path and a function that removes the directory. A failed
// generation's error names the command and carries its output.
func GenRMAT(ctx context.Context, cli string, scale, edgeFactor int, seed uint64) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "bulksample-rmat")
	if err != nil {
		return "", nil, fmt.Errorf("R-MAT graph: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, fmt.Sprintf("r%d.bsn", scale))
	args := []string{"gen", "rmat", "--scale", strconv.Itoa(scale)}
	if edgeFactor != 0 {
		args = append(args, "--edge-factor", strconv.Itoa(edgeFactor))
	}
	args = append(args, "--seed", strconv.FormatUint(seed, 10), "--out", path)
	gen := exec.CommandContext(ctx, cli, args...)
	if out, err := gen.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("%s: %w\n%s", strings.Join(gen.Args, " "), err, out)
	}
	return path, cleanup, nil
}

// GraphOrRMAT returns graph, the file a sweep was given (with a cleanup
// that does nothing), or, when graph is empty, the R-MAT graph GenRMAT
// writes.
func GraphOrRMAT(ctx context.Context, cli, graph string, scale, edgeFactor int, seed uint64) (path string, cleanup func(), err error) {
	if graph != "" {
		return graph, func() {}, nil
	}
	return GenRMAT(ctx, cli, scale, edgeFactor, seed)
}
