package benchutil

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/internal/procstat"
)

func TestParseInts(t *testing.T) {
	for _, tc := range []struct {
		s    string
		lo   int
		want []int // nil: an error
	}{
		{"1", 1, []int{1}},
		{"15, 10,5", 1, []int{15, 10, 5}},
		{"15,-1", -1, []int{15, -1}},
		{"15,-1", 1, nil},
		{"0", 1, nil},
		{"3,x", 1, nil},
		{"", 1, nil},
		{"1,,2", 1, nil},
	} {
		got, err := ParseInts(tc.s, tc.lo)
		switch {
		case tc.want == nil && err == nil:
			t.Errorf("ParseInts(%q, %d) = %v; want an error", tc.s, tc.lo, got)
		case tc.want != nil && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("ParseInts(%q, %d) = %v, %v; want %v", tc.s, tc.lo, got, err, tc.want)
		}
	}
	if got := JoinInts([]int{15, 10, 5}); got != "15,10,5" {
		t.Errorf("JoinInts = %q", got)
	}
}

func TestUsage(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("xbench", flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.Int("reps", 1, "repetitions")
	if err := ParseFlags(fs, []string{"--help"}); !errors.Is(err, flag.ErrHelp) || ExitCode(err) != 0 {
		t.Errorf("--help: %v, exit %d; want flag.ErrHelp, 0", err, ExitCode(err))
	}
	if err := ParseFlags(fs, []string{"--bogus"}); err != ErrUsage || ExitCode(err) != 2 {
		t.Errorf("--bogus: %v, exit %d; want ErrUsage, 2", err, ExitCode(err))
	}
	if err := ParseFlags(fs, []string{"--reps", "3"}); err != nil {
		t.Errorf("--reps 3: %v", err)
	}
	out.Reset()
	if err := ParseFlags(fs, []string{"--reps", "3", "extra"}); err != ErrUsage || !strings.HasPrefix(out.String(), "xbench: unexpected argument \"extra\"\n") {
		t.Errorf("an argument after the flags: %v, wrote %q; want ErrUsage and the argument named", err, out.String())
	}
	out.Reset()
	if err := UsageError(fs, "--reps %d, want > 0", 0); err != ErrUsage {
		t.Errorf("UsageError = %v; want ErrUsage", err)
	}
	if s := out.String(); !strings.HasPrefix(s, "xbench: --reps 0, want > 0\n") || !strings.Contains(s, "-reps") {
		t.Errorf("UsageError wrote %q; want the message and the flags", s)
	}
}

func TestReportWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.md")
	var stdout, stderr bytes.Buffer
	r := Report{Program: "xbench", Path: path, Text: "# one\n", Summary: map[string]int{"n": 1}}
	if err := r.Write(&stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if got, want := stdout.String(), "# one\n{\"n\":1}\n"; got != want {
		t.Errorf("stdout %q; want %q", got, want)
	}
	if got, want := stderr.String(), "xbench: wrote "+path+"\n"; got != want {
		t.Errorf("stderr %q; want %q", got, want)
	}
	r = Report{Program: "xbench", Path: path, Append: true, Text: "# two\n"}
	stdout.Reset()
	if err := r.Write(&stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "# two\n" {
		t.Errorf("stdout without a summary: %q", stdout.String())
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "# one\n# two\n" {
		t.Errorf("file after append: %q, %v", b, err)
	}
	r = Report{Program: "xbench", Path: filepath.Join(path, "sub"), Text: "x"}
	if err := r.Write(&stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("write under a file: %v; want an error naming --out", err)
	}
}

func TestMachine(t *testing.T) {
	m := ThisMachine(3)
	if m.CPU == "" || m.Cores < 1 || m.GOMAXPROCS < 1 || m.Threads != 3 || m.Go == "" || len(m.Date) < 10 {
		t.Errorf("ThisMachine(3) = %+v", m)
	}
	if d := Today(); len(d) != 10 || d[4] != '-' || d[7] != '-' {
		t.Errorf("Today() = %q; want YYYY-MM-DD", d)
	}
	if s := CPUSeconds(); !(s >= 0) {
		t.Errorf("CPUSeconds() = %g", s)
	}
	if _, err := os.Stat("/proc/loadavg"); err == nil {
		if avg, ok := LoadAverages(); !ok || avg[0] == "" || avg[2] == "" {
			t.Errorf("LoadAverages() = %q, %v", avg, ok)
		} else if got, want := LoadAveragesText(), avg[0]+" "+avg[1]+" "+avg[2]; len(strings.Fields(got)) != 3 {
			t.Errorf("LoadAveragesText() = %q; want three fields like %q", got, want)
		}
	}
}

func TestMedianCostAndCells(t *testing.T) {
	costs := []procstat.Cost{
		{CPUSeconds: 1, MinorFaults: 10, AllocBytes: 3 << 20, GCCycles: 1, PeakRSSBytes: 5 << 20},
		{CPUSeconds: 3, MinorFaults: 30, AllocBytes: 1 << 20, GCCycles: 0, PeakRSSBytes: 9 << 20},
		{CPUSeconds: 2, MinorFaults: 20, AllocBytes: 2 << 20, GCCycles: 2, MajorFaults: 1, PeakRSSBytes: 7 << 20},
	}
	m := MedianCost(costs)
	want := procstat.Cost{CPUSeconds: 2, MinorFaults: 20, AllocBytes: 2 << 20, GCCycles: 1, PeakRSSBytes: 9 << 20}
	if m != want {
		t.Errorf("MedianCost = %+v; want %+v", m, want)
	}
	if got := MedianCost(nil); got != (procstat.Cost{}) {
		t.Errorf("MedianCost(nil) = %+v", got)
	}
	cells := CostCells(m)
	if strings.Count(cells, "|") != strings.Count(CostColumns, "|") || strings.Count(CostRule, "|") != strings.Count(CostColumns, "|") {
		t.Errorf("cells %q, rule %q and header %q disagree on the number of columns", cells, CostRule, CostColumns)
	}
	if !strings.Contains(cells, " 20 |") || !strings.Contains(cells, " 2.0 |") || !strings.HasSuffix(cells, " 9 |") {
		t.Errorf("CostCells = %q", cells)
	}
	if c := CostCells(procstat.Cost{MinorFaults: 4, MajorFaults: 2, PeakRSSBytes: -1}); !strings.Contains(c, "4 (+2 major)") || !strings.HasSuffix(c, " - |") {
		t.Errorf("CostCells with major faults and no RSS = %q", c)
	}
}

func TestRunJSON(t *testing.T) {
	type summary struct{ N int }
	for _, tc := range []struct {
		name, script string
		want         int
		err          string
	}{
		{"last line", `echo progress; echo '{"N": 7}'`, 7, ""},
		{"not JSON", `echo '{"N": 7}'; echo done`, 0, "not the JSON summary"},
		{"failed", `echo oops >&2; exit 3`, 0, "oops"},
	} {
		s, err := RunJSON[summary](exec.Command("sh", "-c", tc.script))
		switch {
		case tc.err == "" && (err != nil || s.N != tc.want):
			t.Errorf("%s: %+v, %v; want N = %d", tc.name, s, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v; want one containing %q", tc.name, err, tc.err)
		}
	}
}

// TestGenRMAT runs GenRMAT with a stand-in for the CLI that writes its
// arguments to the --out file: the flags, the file's name, the clean-up,
// and a failure's error naming the command with its output.
func TestGenRMAT(t *testing.T) {
	cli := filepath.Join(t.TempDir(), "fakecli")
	script := "#!/bin/sh\nfor a; do last=$a; done\necho \"$@\" >\"$last\"\n"
	if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edgeFactor int
		want       string
	}{
		{0, "gen rmat --scale 9 --seed 3 --out "},
		{4, "gen rmat --scale 9 --edge-factor 4 --seed 3 --out "},
	} {
		path, cleanup, err := GenRMAT(t.Context(), cli, 9, tc.edgeFactor, 3)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || filepath.Base(path) != "r9.bsn" || string(got) != tc.want+path+"\n" {
			t.Errorf("edge factor %d: %s holds %q (%v), want %q", tc.edgeFactor, path, got, err, tc.want+path)
		}
		cleanup()
		if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
			t.Errorf("cleanup left %s: %v", filepath.Dir(path), err)
		}
	}
	if err := os.WriteFile(cli, []byte("#!/bin/sh\necho no such scale\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := GenRMAT(t.Context(), cli, 9, 0, 3); err == nil || !strings.Contains(err.Error(), cli+" gen rmat --scale 9") ||
		!strings.Contains(err.Error(), "no such scale") {
		t.Errorf("a failing CLI: error %v, want one naming the command with its output", err)
	}
}

func TestFail(t *testing.T) {
	var out bytes.Buffer
	if code := Fail(&out, "xbench", errors.New("disk full")); code != 1 || out.String() != "xbench: disk full\n" {
		t.Errorf("Fail wrote %q, returned %d; want \"xbench: disk full\\n\", 1", out.String(), code)
	}
}

func TestGraphOrRMATGiven(t *testing.T) {
	// A given graph is used as it is: no CLI runs (the binary does not
	// exist) and the cleanup leaves the file alone.
	path := filepath.Join(t.TempDir(), "g.bsn")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, cleanup, err := GraphOrRMAT(t.Context(), "/nonexistent/bulksample", path, 10, 0, 1)
	if err != nil || got != path {
		t.Fatalf("GraphOrRMAT(%q) = %q, %v; want the path itself", path, got, err)
	}
	cleanup()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("cleanup removed the given graph: %v", err)
	}
	if _, _, err := GraphOrRMAT(t.Context(), "/nonexistent/bulksample", "", 10, 0, 1); err == nil {
		t.Error("GraphOrRMAT without a graph and with no CLI: no error")
	}
}

// TestForwardFlags checks that the flags the command line set are passed on
// as they were given, whatever their type, a flag defined after the others
// included, that the excepted ones and the unset ones are not, and that the
// arguments parse back to the same values.
func TestForwardFlags(t *testing.T) {
	define := func() *flag.FlagSet {
		fs := flag.NewFlagSet("prog", flag.ContinueOnError)
		fs.Int("scale", 20, "")
		fs.String("fanouts", "15,10,5", "")
		fs.String("out", "x.md", "")
		fs.Int("threads", 1, "")
		fs.Bool("json", false, "")
		fs.Float64("added-later", 0.5, "") // a flag the forwarding code has never heard of
		return fs
	}
	for _, tc := range []struct {
		name   string
		args   []string
		except []string
		want   []string
	}{
		{"none set", nil, []string{"out"}, nil},
		{"all kinds", []string{"--scale", "9", "--fanouts=4, 3", "--json", "--added-later", "0.25", "--threads", "2"},
			[]string{"threads", "out"}, []string{"-added-later=0.25", "-fanouts=4, 3", "-json=true", "-scale=9"}},
		{"set to the default", []string{"--scale=20", "--out", ""}, []string{"threads"}, []string{"-out=", "-scale=20"}},
		{"excepted only", []string{"--out", "y.md", "--threads", "4"}, []string{"out", "threads"}, nil},
	} {
		fs := define()
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ForwardFlags(fs, tc.except...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: ForwardFlags = %q, want %q", tc.name, got, tc.want)
		}
		// The forwarded arguments give the child the parent's values.
		child := define()
		if err := child.Parse(got); err != nil {
			t.Fatalf("%s: the child cannot parse %q: %v", tc.name, got, err)
		}
		for _, f := range []string{"scale", "fanouts", "json", "added-later"} {
			if !slices.Contains(tc.except, f) && child.Lookup(f).Value.String() != fs.Lookup(f).Value.String() {
				t.Errorf("%s: the child's --%s is %q, the parent's %q", tc.name, f, child.Lookup(f).Value, fs.Lookup(f).Value)
			}
		}
	}
}
