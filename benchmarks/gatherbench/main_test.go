package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

// runMainEnv, set to 1, makes the test binary run the program instead of
// the tests: --pin starts this binary again, one process per thread count.
const runMainEnv = "GATHERBENCH_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		benchutil.Main(run)
	}
	os.Exit(m.Run())
}

// TestRunSmall runs the benchmark on a tiny graph and checks the markdown
// file and the JSON summary.
func TestRunSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gather.md")
	var stdout, stderr bytes.Buffer
	args := []string{"--scale", "10", "--features", "8", "--batch", "32", "--fanouts", "4,3",
		"--minibatches", "2", "--threads", "2,3", "--reps", "1", "--out", out, "--json"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| dense | 1 |", "| dense | 3 |", "| sparse | 2 |", "R-MAT scale 10, f = 8", "--threads 1,2,3"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var sum struct {
		Rows []struct {
			Kind    string  `json:"kind"`
			Threads int     `json:"threads"`
			Rows    int64   `json:"rows"`
			Bytes   int64   `json:"bytes"`
			GBPS    float64 `json:"gb_per_second"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		t.Fatalf("last line is not the JSON summary: %v", err)
	}
	if len(sum.Rows) != 6 {
		t.Fatalf("%d rows; want 6 (dense and sparse at 1, 2, 3 threads)", len(sum.Rows))
	}
	for _, r := range sum.Rows {
		if r.Rows <= 0 || r.Bytes <= 0 || r.GBPS <= 0 {
			t.Errorf("%s T=%d: %d rows, %d bytes, %v GB/s", r.Kind, r.Threads, r.Rows, r.Bytes, r.GBPS)
		}
		if r.Kind == "dense" && r.Bytes != r.Rows*8*4 {
			t.Errorf("dense T=%d: %d bytes for %d rows of 8 floats", r.Threads, r.Bytes, r.Rows)
		}
	}
}

// TestRunPinned runs the benchmark with --pin: one process per thread
// count, each pinned (the pinning itself is benchutil's test), and one
// table of their rows.
func TestRunPinned(t *testing.T) {
	threads := "1,2"
	if runtime.NumCPU() < 2 {
		threads = "1"
	}
	t.Setenv(runMainEnv, "1")
	var stdout, stderr bytes.Buffer
	args := []string{"--scale", "9", "--features", "8", "--batch", "32", "--fanouts", "4,3",
		"--minibatches", "2", "--threads", threads, "--reps", "1", "--out", "", "--pin", "--json"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"| dense | 1 |", "| sparse | 1 |", "Pinned (`--pin`)", "--threads " + threads + " --reps 1 --pin`"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if threads == "1,2" && (!strings.Contains(out, "| dense | 2 |") || !strings.Contains(out, "| sparse | 2 |")) {
		t.Errorf("output lacks the rows of 2 threads:\n%s", out)
	}
	stderr.Reset()
	args = []string{"--threads", "1," + strconv.Itoa(runtime.NumCPU()+1), "--pin", "--out", ""}
	if code := run(context.Background(), args, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "--pin: pin to") {
		t.Errorf("--pin with more threads than CPUs: exit %d, stderr %q", code, stderr.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--threads", "0"}, "--threads"},
		{[]string{"--density", "0"}, "--density"},
		{[]string{"--fanouts", "x"}, "--fanouts"},
		{[]string{"--features", "0"}, "--features"},
		{[]string{"extra"}, "extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(stderr.String(), c.flag) {
			t.Errorf("%v: stderr does not name %s:\n%s", c.args, c.flag, stderr.String())
		}
	}
}

// TestChildArgs checks what --pin passes to the process of each thread
// count: every flag the user set, whichever it is (the test sets every flag
// the program defines, so that a flag added later is covered without
// naming it), but those the parent handles, which the child gets as the
// parent decides; and that the child parses them to the same settings.
func TestChildArgs(t *testing.T) {
	all, err := parseArgs(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var args, forwarded []string
	all.flags.VisitAll(func(f *flag.Flag) {
		value := f.DefValue
		switch f.Name {
		case "scale":
			value = "9" // not the default: the value is the user's
		case "fanouts":
			value = "4,3"
		}
		args = append(args, "--"+f.Name+"="+value)
		if !slices.Contains(parentFlags(), f.Name) {
			forwarded = append(forwarded, "-"+f.Name+"="+value)
		}
	})
	c, err := parseArgs(args, io.Discard)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	got := childArgs(c, 4)
	want := append(forwarded, "--threads", "4", "--out", "", "--json")
	if !slices.Equal(got, want) {
		t.Errorf("childArgs = %q,\nwant %q", got, want)
	}
	child, err := parseArgs(got, io.Discard)
	if err != nil {
		t.Fatalf("the child cannot parse %q: %v", got, err)
	}
	if child.scale != 9 || !slices.Equal(child.fanouts, []int{4, 3}) || !slices.Equal(child.threads, []int{1, 4}) ||
		child.out != "" || !child.json || child.pin || child.appendOut {
		t.Errorf("the child's settings %+v, want scale 9, fanouts 4,3, threads 1,4, no --out, --json, no --pin or --append", child)
	}
	// Without flags, the child gets only what the parent sets.
	if got := childArgs(all, 2); !slices.Equal(got, []string{"--threads", "2", "--out", "", "--json"}) {
		t.Errorf("childArgs with no flags set = %q", got)
	}
}
