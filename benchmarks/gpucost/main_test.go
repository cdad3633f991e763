package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/gpu"
)

// smallArgs is make test's run: a small graph, every kind of row.
var smallArgs = []string{"--scale", "12", "--batch", "64", "--k", "1,4,16", "--ladies-batch", "64", "--budgets", "64,64",
	"--ladies-k", "1,4", "--gather-rows", "256", "--step-nodes", "1024", "--step-batch", "64", "--check", "--json"}

// TestReportMeetsGoals runs the cost report on a small graph: every goal of
// issue 41 holds, each row has the figures the goals read, and the
// node-wise launches per bulk do not depend on k.
func TestReportMeetsGoals(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), smallArgs, &stdout, &stderr); code != 0 {
		t.Fatalf("gpucost exited %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "every goal met") {
		t.Fatalf("no \"every goal met\" in\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var res struct {
		Rows   []row    `json:"rows"`
		Failed []string `json:"failed"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range res.Rows {
		kinds[r.Kind]++
		if r.Launches == 0 || r.Edges == 0 || (r.Kind != "step" && r.Traffic() == 0) {
			t.Errorf("%s at k = %d: %+v; want launches, edges and (sampling) traffic", r.Kind, r.K, r.Costs)
		}
	}
	if kinds["node"] != 3 || kinds["ladies"] != 2 || kinds["fastgcn"] != 2 || kinds["qa"] != 1 || kinds["step"] != 1 {
		t.Errorf("rows by kind %v", kinds)
	}
}

// TestGoalsFail: each goal fails on a row that breaks it.
func TestGoalsFail(t *testing.T) {
	ok := row{Kind: "node", K: 4, Layers: 3, Costs: gpu.Costs{Launches: 9, Downloads: 3, Read: 500, Written: 300}, Edges: 10}
	if f := goals([]row{ok}); len(f) != 0 {
		t.Fatalf("a row within the goals fails: %v", f)
	}
	// One k cannot tell a kernel of a block per minibatch from a one-tile
	// kernel: no failure from a single LADIES row whose kernel has
	// blockSize threads and a busy thread.
	single := row{Kind: "ladies", K: 1, Layers: 2, Costs: gpu.Costs{Kernels: map[string]gpu.KernelCosts{
		"lw_ecount": {Launches: 2, Threads: 2 * 256, Read: 80000, MaxThread: 10000}}}}
	if f := goals([]row{single}); len(f) != 0 {
		t.Errorf("a single k of LADIES fails: %v", f)
	}
	for _, c := range []struct {
		name string
		rows []row
		want string
	}{
		{"launches", []row{with(ok, func(r *row) { r.Launches = 19 })}, "launches per layer"},
		{"copies", []row{with(ok, func(r *row) { r.Downloads = 4 })}, "blocking copies"},
		{"traffic", []row{with(ok, func(r *row) { r.Read = 1000 })}, "bytes of global memory per sampled edge"},
		{"allocation", []row{with(ok, func(r *row) { r.Allocs = 1 })}, "allocations in a warm call"},
		{"k", []row{ok, with(ok, func(r *row) { r.K, r.Launches = 16, 12 })}, "depend on k"},
		{"step sync", []row{{Kind: "step", K: 1, Layers: 2, Costs: gpu.Costs{Launches: 20, Syncs: 1}, Edges: 10}}, "device-wide syncs in a warm step"},
		{"one thread", []row{{Kind: "ladies", K: 4, Layers: 2, Costs: gpu.Costs{Kernels: map[string]gpu.KernelCosts{
			"lw_select": {Launches: 2, Threads: 8, Read: 80000}}}}}, "one thread per minibatch in lw_select"},
		{"one thread of a block", []row{{Kind: "ladies", K: 1, Layers: 2, Costs: gpu.Costs{Kernels: map[string]gpu.KernelCosts{
			"lw_select": {Launches: 2, Threads: 2 * 256, Read: 20000, MaxThread: 10000}}}},
			{Kind: "ladies", K: 4, Layers: 2, Costs: gpu.Costs{Kernels: map[string]gpu.KernelCosts{
				"lw_select": {Launches: 2, Threads: 2 * 4 * 256, Read: 80000, MaxThread: 10000}}}}}, "one thread per minibatch in lw_select"},
	} {
		f := strings.Join(goals(c.rows), "\n")
		if !strings.Contains(f, c.want) {
			t.Errorf("%s: goals %q; want one with %q", c.name, f, c.want)
		}
	}
}

func with(r row, fn func(*row)) row {
	fn(&r)
	return r
}
