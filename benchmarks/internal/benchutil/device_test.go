package benchutil

// The sweep bundle's runner (scripts/sweep-run.sh, run.sh in the folder
// scripts/sweep-bundle.sh builds) runs the sweeps of this package's
// programs on the 16-core machine, where nothing can be fixed once a run
// has started; this test runs each of its parts here, on a tiny graph.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// repoRoot is the module's root relative to this package's directory.
const repoRoot = "../../.."

// TestDeviceRunner builds the bundle's binaries (with `go build`, the
// project's build tags, so that the build cache of the tests serves it;
// the static build of sweep-bundle.sh is that script's own check) beside
// a copy of scripts/sweep-run.sh, runs every part on an R-MAT graph of
// scale 10 with the sizes set small through the runner's environment, and
// checks what it writes: machine.txt, a markdown table per part whose rows
// all have the header's cells and none empty or NaN, one row per thread
// count and k, the sweeps' verdict, and JSON summaries with every round.
// CORES is the default 1,2,4,8,16, so that on a machine of fewer than 16
// CPUs the runner must leave the larger counts out and say so.
func TestDeviceRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("the device runner's test runs in the full pass of make test, not under -short")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		why := "taskset (util-linux) not found on PATH: the device runner's pinned parts need it"
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: %s", why)
		}
		t.Skip(why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bundle := filepath.Join(dir, "bundle")
	tags, err := exec.CommandContext(ctx, filepath.Join(repoRoot, "scripts", "build-tags.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/build-tags.sh: %v", err)
	}
	build := exec.CommandContext(ctx, "go", "build", "-tags", strings.TrimSpace(string(tags)), "-o", bundle+"/",
		"./cmd/bulksample", "./benchmarks/samplebench", "./benchmarks/ladiesbench", "./benchmarks/gatherbench")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "sweep-run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, "run.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(dir, "out")
	cmd := exec.CommandContext(ctx, filepath.Join(bundle, "run.sh"), "info", "gen", "node", "ladies", "gather", "pincheck")
	cmd.Env = append(os.Environ(), "OUT="+out, "WORK="+filepath.Join(dir, "work"), "SCALE=10", "SEED=1", "GRAPH=", "BUDGET=150",
		"CORES=1,2,4,8,16", "PIN_CORES=1,2",
		"NODE_K=1,4", "NODE_SEEDS=1024", "NODE_ROUNDS=2", "NODE_PASSES=2", "NODE_BATCH=256",
		"LADIES_K=1,4", "LADIES_SEEDS=512", "LADIES_ROUNDS=2", "LADIES_PASSES=2", "LADIES_BATCH=64", "LADIES_BUDGETS=32,32",
		"GATHER_SCALE=10", "GATHER_REPS=1", "GATHER_FEATURES=8", "GATHER_BATCH=64", "GATHER_MINIBATCHES=2",
		"PIN_K=1,4", "PIN_SEEDS=1024", "PIN_PAIRS=1", "PIN_PASSES=2")
	cmd.Dir = dir
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run.sh: %v\n%s", err, log)
	}

	cpus, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	var cores, pinCores []string // the thread counts that fit, as run.sh keeps them
	for _, c := range []int{1, 2, 4, 8, 16} {
		if c <= len(cpus) {
			cores = append(cores, strconv.Itoa(c))
			if c <= 2 {
				pinCores = append(pinCores, strconv.Itoa(c))
			}
		}
	}
	runLog := readOut(t, out, "run.log")
	capped := "CORES=1,2,4,8,16 capped to " + strings.Join(cores, ",") + ": this process may run on " + strconv.Itoa(len(cpus)) + " CPUs"
	if len(cpus) < 16 && !strings.Contains(runLog, capped) {
		t.Errorf("run.log does not say %q:\n%s", capped, runLog)
	}
	if len(cpus) >= 16 && strings.Contains(runLog, "capped") {
		t.Errorf("run.log caps the thread counts on %d CPUs:\n%s", len(cpus), runLog)
	}
	if m := readOut(t, out, "machine.txt"); !strings.Contains(m, "thread counts: CORES "+strings.Join(cores, ",")+" (asked 1,2,4,8,16)") ||
		!strings.Contains(m, "hyperthread siblings per CPU:") {
		t.Errorf("machine.txt lacks the thread counts or the topology:\n%s", m)
	}

	// The first cells of each part's rows: thread count and k (the best k
	// marked *), or the store and thread count.
	var sweepKeys, gatherKeys, pinKeys [][2]string
	for _, c := range cores {
		sweepKeys = append(sweepKeys, [2]string{c, "1"}, [2]string{c, "4"})
	}
	for _, kind := range []string{"dense", "sparse"} {
		for _, c := range cores {
			gatherKeys = append(gatherKeys, [2]string{kind, c})
		}
	}
	for _, c := range pinCores {
		pinKeys = append(pinKeys, [2]string{c, "1"}, [2]string{c, "4"})
	}
	for _, part := range []struct {
		file    string
		keys    [][2]string
		verdict bool
	}{
		{"node.md", sweepKeys, true},
		{"ladies.md", sweepKeys, true},
		{"gather.md", gatherKeys, false},
		{"pincheck.md", pinKeys, false},
	} {
		text := readOut(t, out, part.file)
		tables, err := markdownTables(text)
		if err != nil {
			t.Errorf("%s: %v\n%s", part.file, err, text)
			continue
		}
		if len(tables) != 1 {
			t.Errorf("%s: %d tables, want 1\n%s", part.file, len(tables), text)
			continue
		}
		var keys [][2]string
		for _, row := range tables[0][1:] {
			keys = append(keys, [2]string{row[0], strings.TrimSuffix(row[1], "*")})
		}
		if !slices.Equal(keys, part.keys) {
			t.Errorf("%s: rows %v, want %v\n%s", part.file, keys, part.keys, text)
		}
		if part.verdict && !strings.Contains(text, "Verdict on issue 14's goal") {
			t.Errorf("%s has no verdict:\n%s", part.file, text)
		}
	}

	for _, name := range []string{"node.json", "ladies.json"} {
		var rows []SweepJSONRow
		sum := SweepSummary{Rows: &rows}
		if err := json.Unmarshal([]byte(readOut(t, out, name)), &sum); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(rows) != len(sweepKeys) || len(sum.PinnedCPUs) != len(cores) {
			t.Errorf("%s: %d rows and CPU lists %v, want %d and one per thread count %v", name, len(rows), sum.PinnedCPUs, len(sweepKeys), cores)
		}
		for _, r := range rows {
			if len(r.WarmSEPS) != 2 || slices.Min(r.WarmSEPS) <= 0 {
				t.Errorf("%s: T = %d, k = %d: warm SEPS %v, want 2 rounds, each > 0", name, r.Threads, r.K, r.WarmSEPS)
			}
		}
	}
	var gather struct {
		Rows []struct {
			Kind    string  `json:"kind"`
			Threads int     `json:"threads"`
			GBPS    float64 `json:"gb_per_second"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(readOut(t, out, "gather.json")), &gather); err != nil || len(gather.Rows) != len(gatherKeys) {
		t.Errorf("gather.json: %v, %d rows, want %d", err, len(gather.Rows), len(gatherKeys))
	}
}

// readOut returns the file name of the runner's output folder out.
func readOut(t *testing.T, out, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Errorf("the runner wrote no %s: %v", name, err)
	}
	return string(b)
}

// markdownTables returns the tables of a markdown text, each as its header
// and rows of cells, the separator left out. It fails on a table without
// a separator or rows, a row whose cells are not the header's in number,
// and an empty cell or one that reads NaN or Inf.
func markdownTables(text string) ([][][]string, error) {
	var tables [][][]string
	var table [][]string
	lines := strings.Split(text, "\n")
	for i := 0; i <= len(lines); i++ {
		if i < len(lines) && strings.HasPrefix(lines[i], "|") {
			line := strings.TrimSpace(lines[i])
			if !strings.HasSuffix(line, "|") {
				return nil, fmt.Errorf("line %d: %q does not end with |", i+1, line)
			}
			cells := strings.Split(line[1:len(line)-1], "|")
			for j := range cells {
				cells[j] = strings.TrimSpace(cells[j])
			}
			table = append(table, cells)
			continue
		}
		if table == nil {
			continue
		}
		if len(table) < 3 {
			return nil, fmt.Errorf("line %d: a table of %d lines, want a header, a separator and rows", i, len(table))
		}
		for j, cell := range table[1] {
			if strings.Trim(cell, ":-") != "" || !strings.Contains(cell, "---") {
				return nil, fmt.Errorf("table ending at line %d: separator cell %d is %q", i, j+1, cell)
			}
		}
		rows := append(table[:1:1], table[2:]...)
		for r, row := range rows {
			if len(row) != len(table[0]) {
				return nil, fmt.Errorf("table ending at line %d: row %d has %d cells, the header %d", i, r, len(row), len(table[0]))
			}
			for _, cell := range row {
				if cell == "" || (r > 0 && notANumber(cell)) {
					return nil, fmt.Errorf("table ending at line %d: row %d has the cell %q", i, r, cell)
				}
			}
		}
		tables, table = append(tables, rows), nil
	}
	return tables, nil
}

// notANumber reports whether a cell has a word NaN or Inf (any case), as
// Go and awk print a failed division.
func notANumber(cell string) bool {
	words := strings.FieldsFunc(strings.ToLower(cell), func(r rune) bool { return r < 'a' || r > 'z' })
	return slices.ContainsFunc(words, func(w string) bool { return w == "nan" || w == "inf" || w == "infinity" })
}

// TestMarkdownTables checks the table reader of TestDeviceRunner on tables
// it must take and tables it must refuse.
func TestMarkdownTables(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		rows       int // of the one table; -1: refused
	}{
		{"two rows", "text\n\n| a | b |\n|---|---:|\n| 1 | 2* |\n| 3 | 0.9 [0.8, 1.0] |\n\nmore", 2},
		{"at the end", "| a | b |\n|:---|---:|\n| 1 | 2 |", 1},
		{"a row short", "| a | b |\n|---|---|\n| 1 |\n", -1},
		{"no separator", "| a | b |\n| 1 | 2 |\n| 3 | 4 |\n", -1},
		{"no rows", "| a | b |\n|---|---|\n\n", -1},
		{"empty cell", "| a | b |\n|---|---|\n| 1 |  |\n", -1},
		{"NaN", "| a | b |\n|---|---|\n| 1 | NaN |\n", -1},
		{"Inf", "| a | b |\n|---|---|\n| 1 | 2 (+Inf-3) |\n", -1},
		{"inf in awk", "| a | b |\n|---|---|\n| 1 | inf |\n", -1},
		{"unclosed", "| a | b |\n|---|---|\n| 1 | 2\n", -1},
	} {
		tables, err := markdownTables(tc.text)
		switch {
		case tc.rows < 0 && err == nil:
			t.Errorf("%s: read %q, want an error", tc.name, tables)
		case tc.rows >= 0 && (err != nil || len(tables) != 1 || len(tables[0]) != tc.rows+1):
			t.Errorf("%s: %q, %v; want one table of %d rows", tc.name, tables, err, tc.rows)
		}
	}
}
