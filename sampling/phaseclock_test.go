package sampling

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/spgemm"
)

// nwPhaseNames returns the rows of the phase table: each sums the serial time
// charged to some sites of the clock and the passes of others (see
// phaseTimes). The sites of a group's four passes are told apart by
// their order (groupSites): sizes, selection, extraction, frontier.
func nwPhaseNames() []string {
	return []string{
		"seed check", "team start/stop", "bulk arrays", "seed dedup",
		"planning", "sizes (pass 1)", "row offsets", "selection (pass 2)",
		"entry offsets, output resize", "extraction (pass 3)", "split extraction",
		"frontier F_{l+1}", "end of bulk",
	}
}

// phaseTime is one row of the table: serial and parallel wall time, and
// the passes' busy times.
type phaseTime struct {
	serial, pass, busy, maxBusy, mean time.Duration
	passes                            int
}

func (p *phaseTime) add(s *siteTime, serial, pass bool) {
	if serial {
		p.serial += s.serial
	}
	if pass {
		p.pass += s.pass
		p.busy += s.busy
		p.maxBusy += s.maxBusy
		p.mean += s.mean
		p.passes += s.passes
	}
}

// phaseTimes maps the clock's sites to the rows of nwPhaseNames (by name);
// sites it does not know come back under their own names in unknown.
func phaseTimes(pc *phaseClock) (rows map[string]*phaseTime, unknown []string) {
	rows = map[string]*phaseTime{}
	for _, name := range nwPhaseNames() {
		rows[name] = new(phaseTime)
	}
	group := groupSites(pc)
	groupRows := [][2]string{ // serial before the pass, the pass
		{"planning", "sizes (pass 1)"},
		{"row offsets", "selection (pass 2)"},
		{"entry offsets, output resize", "extraction (pass 3)"},
		{"frontier F_{l+1}", "frontier F_{l+1}"},
	}
	for _, site := range pc.order {
		s := pc.sites[site]
		switch {
		case site == "seed check", site == "bulk arrays", site == "end of bulk":
			rows[site].add(s, true, false)
		case site == "team start", site == "team stop":
			rows["team start/stop"].add(s, true, false)
		case site == "dedupSeeds: gather", strings.HasPrefix(site, "(*NodeWise).dedupSeeds:"):
			rows["seed dedup"].add(s, true, true)
		case strings.HasPrefix(site, "(*NodeWise).extractSplit:"):
			rows["split extraction"].add(s, true, true)
		case len(group) == len(groupRows) && slices.Contains(group, site):
			r := groupRows[slices.Index(group, site)]
			rows[r[0]].add(s, true, false)
			rows[r[1]].add(s, false, true)
		default:
			unknown = append(unknown, site)
			rows[site] = new(phaseTime)
			rows[site].add(s, true, true)
		}
	}
	return rows, unknown
}

// groupSites returns the sites of a group's passes in the order they run:
// sizeGroup's sizes, selectGroup's selection, then extractGroup's
// extraction and frontier, each function's in source order.
func groupSites(pc *phaseClock) []string {
	var group []string
	for _, fn := range []string{"(*NodeWise).sizeGroup:", "(*NodeWise).selectGroup:", "(*NodeWise).extractGroup:"} {
		var sites []string
		for _, site := range pc.order {
			if strings.HasPrefix(site, fn) {
				sites = append(sites, site)
			}
		}
		line := func(site string) int {
			n, _ := strconv.Atoi(site[strings.LastIndexByte(site, ':')+1:])
			return n
		}
		sort.Slice(sites, func(i, j int) bool { return line(sites[i]) < line(sites[j]) })
		group = append(group, sites...)
	}
	return group
}

// TestPhaseClock samples with and without the clock (same samples), with
// the split extraction on, and checks what the clock recorded: every site
// of a bulk, time that adds up to no more than the calls took, and no
// goroutine busier than its pass was long. It takes well under a second.
func TestPhaseClock(t *testing.T) {
	a, err := dataset.RMAT(dataset.RMATOptions{Scale: 11, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	seeds := phaseSeeds(a.Rows, 6*64, 64)
	opt := NodeWiseOptions{Fanouts: []int{8, 4}, Seed: 5, Threads: 2}
	sample := func(clock *phaseClock) (string, time.Duration) {
		nw, err := NewNodeWise(a, opt)
		if err != nil {
			t.Fatal(err)
		}
		nw.splitPicks = 16 // split the tail minibatches of small groups too
		nw.clock = clock
		d := NewDigest()
		var wall time.Duration
		for lo := 0; lo < len(seeds); lo += 3 {
			start := time.Now()
			b, err := nw.SampleBulk(context.Background(), 1, lo, seeds[lo:min(lo+3, len(seeds))])
			wall += time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			d.AddBulk(b)
			b.Release()
		}
		return d.Sum(), wall
	}
	want, _ := sample(nil)
	pc := newPhaseClock()
	pc.logging = true
	got, wall := sample(pc)
	if got != want {
		t.Fatalf("digest with the clock %s, without %s", got, want)
	}
	rows, unknown := phaseTimes(pc)
	if len(unknown) > 0 {
		t.Errorf("sites the table does not know: %v (all: %v)", unknown, pc.order)
	}
	var sum time.Duration
	passes := 0
	for _, s := range pc.sites {
		passes += s.passes
	}
	if len(pc.log) != passes {
		t.Errorf("%d passes logged, %d counted", len(pc.log), passes)
	}
	for _, name := range nwPhaseNames() {
		r := rows[name]
		sum += r.serial + r.pass
		if r.maxBusy > r.pass || r.mean > r.maxBusy {
			t.Errorf("%s: passes %v, busiest goroutine %v, mean %v: want mean <= busiest <= pass", name, r.pass, r.maxBusy, r.mean)
		}
		pass := !strings.Contains("seed check team start/stop bulk arrays planning row offsets entry offsets, output resize end of bulk", name)
		if pass != (r.passes > 0) {
			t.Errorf("%s: %d passes", name, r.passes)
		}
	}
	if sum > wall || sum <= 0 {
		t.Errorf("the phases add up to %v; the calls took %v", sum, wall)
	}
}

// phaseSeeds returns nmb minibatches of b seeds, drawn as an epoch plan
// draws them.
func phaseSeeds(n, seeds, b int) [][]int32 {
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	plan, _ := NewPlan(all, PlanOptions{BatchSize: b, Seed: 1})
	e := plan.Epoch(0)
	e.Truncate(seeds)
	return e.Minibatches
}

// benchEnv returns the environment variable name, or def when it is unset.
func benchEnv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// benchInts parses the environment variable name (def when unset) as a
// list of positive integers.
func benchInts(b *testing.B, name, def string) []int {
	var out []int
	for f := range strings.SplitSeq(benchEnv(name, def), ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			b.Fatalf("%s: %q is not a list of positive integers", name, benchEnv(name, def))
		}
		out = append(out, v)
	}
	return out
}

// benchGraph returns the graph of BULKSAMPLE_PHASE_GRAPH, or R-MAT scale
// 16 when it is unset, and its name.
func benchGraph(b *testing.B) (*spgemm.CSR, string) {
	graph := benchEnv("BULKSAMPLE_PHASE_GRAPH", "")
	if graph == "" {
		a, err := dataset.RMAT(dataset.RMATOptions{Scale: 16, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		return a, "R-MAT scale 16 (in process)"
	}
	d, err := dataset.Load(graph, &dataset.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return d.Adj, graph
}

// BenchmarkNodeWisePhases states where a node-wise bulk's wall time goes,
// phase by phase: serial (the calling goroutine alone, between the team's
// passes) and parallel (the passes), at each thread count, and Amdahl's
// projection of the efficiency at 4, 8 and 16 threads from the 1-thread
// split. It prints its tables on standard output (one iteration does the whole
// measurement). The environment configures it:
//
//	BULKSAMPLE_PHASE_GRAPH   graph file (any format dataset.Load reads); default R-MAT scale 16
//	BULKSAMPLE_PHASE_SEEDS   seeds per pass (default 262144, at most the vertices)
//	BULKSAMPLE_PHASE_K       bulk sizes (default 16,64,256)
//	BULKSAMPLE_PHASE_THREADS thread counts, 1 first (default 1,2)
//	BULKSAMPLE_PHASE_ROUNDS  rounds (default 3)
//
// b = 1024, fanouts 15,10,5, uniform without replacement, seed 1. Every
// round runs every configuration (threads, k) once with the clock and once
// without, in an order rotated per round; the passes without the clock
// measure what the clock costs. Run as (results/sampling.md):
//
//	BULKSAMPLE_PHASE_GRAPH=r22.bsn go test ./sampling -run - -bench NodeWisePhases -benchtime 1x -timeout 30m
func BenchmarkNodeWisePhases(b *testing.B) {
	began := time.Now()
	a, graph := benchGraph(b)
	ints := func(name, def string) []int { return benchInts(b, name, def) }
	ks, threads := ints("BULKSAMPLE_PHASE_K", "16,64,256"), ints("BULKSAMPLE_PHASE_THREADS", "1,2")
	rounds := ints("BULKSAMPLE_PHASE_ROUNDS", "3")[0]
	nseeds := min(ints("BULKSAMPLE_PHASE_SEEDS", "262144")[0], a.Rows)
	if threads[0] != 1 {
		b.Fatalf("BULKSAMPLE_PHASE_THREADS must start with 1 (the projection's base)")
	}

	// The epoch plan's permutation, serial, once per epoch: its cost
	// against an epoch's sampling is stated beside the table.
	all := make([]int32, a.Rows)
	for i := range all {
		all[i] = int32(i)
	}
	plan, _ := NewPlan(all, PlanOptions{BatchSize: 1024, Seed: 1})
	t0 := time.Now()
	ep := plan.Epoch(0)
	epochPlan := time.Since(t0)
	ep.Truncate(nseeds)
	mbs := ep.Minibatches

	type config struct {
		t, k    int
		nw      *NodeWise
		clock   *phaseClock
		on, off []time.Duration // wall of each round's pass with and without the clock
		cpu     []float64       // CPUs busy in each round's pass without the clock
		edges   int64
	}
	samplers := map[int]*NodeWise{}
	var configs []*config
	for _, t := range threads {
		nw, err := NewNodeWise(a, NodeWiseOptions{Fanouts: []int{15, 10, 5}, Seed: 1, Threads: t})
		if err != nil {
			b.Fatal(err)
		}
		samplers[t] = nw
		for _, k := range ks {
			configs = append(configs, &config{t: t, k: k, nw: nw, clock: newPhaseClock()})
		}
	}
	var meter procstat.Meter
	// pass samples the seeds once in bulks of c.k and returns its wall
	// time and the CPUs the process kept busy meanwhile.
	pass := func(c *config, clock *phaseClock) (time.Duration, float64) {
		c.nw.clock = clock
		defer func() { c.nw.clock = nil }()
		var wall time.Duration
		var edges int64
		before := meter.Now()
		for lo := 0; lo < len(mbs); lo += c.k {
			start := time.Now()
			bulk, err := c.nw.SampleBulk(context.Background(), 0, lo, mbs[lo:min(lo+c.k, len(mbs))])
			wall += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			edges += bulk.SampledEdges()
			bulk.Release()
		}
		cost := meter.Now().Sub(before)
		if c.edges != 0 && edges != c.edges {
			b.Fatalf("%d threads, k = %d: %d sampled edges, %d before", c.t, c.k, edges, c.edges)
		}
		c.edges = edges
		return wall, cost.CPUSeconds / cost.Seconds
	}
	setup := time.Since(began)
	var warm time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		for _, c := range configs { // warm: buffers grown, pages touched
			pass(c, nil)
		}
		warm = time.Since(start)
		for r := range rounds {
			for i := range configs {
				c := configs[(i+r)%len(configs)]
				var on, off time.Duration
				var cpu float64
				if r%2 == 0 {
					on, _ = pass(c, c.clock)
					off, cpu = pass(c, nil)
				} else {
					off, cpu = pass(c, nil)
					on, _ = pass(c, c.clock)
				}
				c.on, c.off, c.cpu = append(c.on, on), append(c.off, off), append(c.cpu, cpu)
			}
		}
	}
	b.StopTimer()

	var out strings.Builder
	fmt.Fprintf(&out, "graph %s: %d vertices, %d edges; %d seeds a pass in %d minibatches of 1024, fanouts 15,10,5; %d rounds\n",
		graph, a.Rows, a.NNZ(), nseeds, len(mbs), rounds)
	fmt.Fprintf(&out, "setup (load, plan, samplers) %.1f s, warm passes %.1f s, all %.1f s\n", setup.Seconds(), warm.Seconds(), time.Since(began).Seconds())
	fmt.Fprintf(&out, "epoch plan (Plan.Epoch, serial, once per epoch of %d seeds): %.1f ms\n", a.Rows, ms(epochPlan))
	one := map[int]*config{}
	for _, c := range configs {
		if c.t == 1 {
			one[c.k] = c
		}
	}
	for _, k := range ks {
		base := one[k]
		rows1, _ := phaseTimes(base.clock)
		var total1 time.Duration
		for _, r := range rows1 {
			total1 += r.serial + r.pass
		}
		fmt.Fprintf(&out, "\nk = %d (%d bulks a pass)\n", k, (len(mbs)+k-1)/k)
		fmt.Fprintf(&out, "| phase | share at 1 thread | 1 thread: serial ms | parallel ms |")
		for _, c := range configs {
			if c.k == k && c.t > 1 {
				fmt.Fprintf(&out, " %d threads: serial ms | parallel ms | imbalance (max/mean busy) | pass overhead ms |", c.t)
			}
		}
		fmt.Fprintf(&out, " Amdahl E(4) | E(8) | E(16) | passes |\n")
		var serial1, pass1 time.Duration
		names := nwPhaseNames()
		for name := range rows1 {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		for _, name := range names {
			r := rows1[name]
			serial1 += r.serial
			pass1 += r.pass
			fmt.Fprintf(&out, "| %s | %.2f%% | %.1f | %.1f |", name, 100*frac(r.serial+r.pass, total1), perPass(r.serial, rounds), perPass(r.pass, rounds))
			for _, c := range configs {
				if c.k == k && c.t > 1 {
					rt, _ := phaseTimes(c.clock)
					x := rt[name]
					if x == nil {
						x = new(phaseTime)
					}
					fmt.Fprintf(&out, " %.1f | %.1f | %s | %.1f |", perPass(x.serial, rounds), perPass(x.pass, rounds),
						ratio(x.maxBusy, x.mean), perPass(x.pass-x.maxBusy, rounds))
				}
			}
			for _, n := range []int{4, 8, 16} {
				fmt.Fprintf(&out, " %s |", amdahl(r.serial, r.pass, n))
			}
			fmt.Fprintf(&out, " %.0f |\n", float64(r.passes)/float64(rounds))
		}
		fmt.Fprintf(&out, "| all | 100%% | %.1f | %.1f |", perPass(serial1, rounds), perPass(pass1, rounds))
		for _, c := range configs {
			if c.k == k && c.t > 1 {
				rt, _ := phaseTimes(c.clock)
				var s, p, mx, mn time.Duration
				for _, x := range rt {
					s, p, mx, mn = s+x.serial, p+x.pass, mx+x.maxBusy, mn+x.mean
				}
				fmt.Fprintf(&out, " %.1f | %.1f | %s | %.1f |", perPass(s, rounds), perPass(p, rounds), ratio(mx, mn), perPass(p-mx, rounds))
			}
		}
		var passes int
		for _, r := range rows1 {
			passes += r.passes
		}
		for _, n := range []int{4, 8, 16} {
			fmt.Fprintf(&out, " %s |", amdahl(serial1, pass1, n))
		}
		fmt.Fprintf(&out, " %.0f |\n", float64(passes)/float64(rounds))
		fmt.Fprintf(&out, "serial fraction at 1 thread: %.2f%%\n", 100*frac(serial1, serial1+pass1))
		for _, c := range configs {
			if c.k != k {
				continue
			}
			on, off := median(c.on), median(c.off)
			fmt.Fprintf(&out, "%d threads: pass %.1f ms without the clock (%.2fM SEPS, %.2f CPUs busy), %.1f ms with it (x%.3f)",
				c.t, ms(off), float64(c.edges)/off.Seconds()/1e6, median(c.cpu), ms(on), on.Seconds()/off.Seconds())
			if c.t > 1 {
				rt, _ := phaseTimes(c.clock)
				var busy, busy1 time.Duration
				for _, x := range rt {
					busy += x.busy
				}
				for _, x := range rows1 {
					busy1 += x.busy
				}
				fmt.Fprintf(&out, "; the passes' goroutines were busy %.2fx as long as 1 thread's for the same work", frac(busy, busy1))
				fmt.Fprintf(&out, "; efficiency measured %.3f (without the clock, medians), Amdahl from 1 thread predicts %s",
					median(base.off).Seconds()/(float64(c.t)*off.Seconds()), amdahl(serial1, pass1, c.t))
			}
			out.WriteString("\n")
		}
	}
	// The extraction hands out whole minibatches (a split by count):
	// project its imbalance at more threads from each minibatch's own
	// extraction time, measured at 1 thread in bulks of one minibatch (one
	// extraction pass per minibatch and layer), and, as a proxy, from its
	// entries. Minibatches are grouped as the sampler groups them at each
	// thread count.
	var rows, entries, costs [][]float64 // per layer, per minibatch
	{
		nw := samplers[1]
		for rep := range 3 { // the fastest of 3: a goroutine descheduled by another process is not the minibatch's cost
			pc := newPhaseClock()
			pc.logging = true
			nw.clock = pc
			for m := range mbs {
				bulk, err := nw.SampleBulk(context.Background(), 0, m, mbs[m:m+1])
				if err != nil {
					b.Fatal(err)
				}
				if rep == 0 {
					rows, entries = appendLayerSizes(rows, entries, bulk, m == 0)
				}
				bulk.Release()
			}
			nw.clock = nil
			g := groupSites(pc)
			if len(g) != 4 {
				b.Fatalf("a group's passes: %v, want 4", g)
			}
			if rep == 0 {
				costs = make([][]float64, len(rows))
			}
			n := make([]int, len(rows)) // per layer: extraction passes seen
			l := 0
			for _, p := range pc.log {
				if p.site != g[2] {
					continue
				}
				if rep == 0 {
					costs[l] = append(costs[l], p.busy.Seconds())
				} else if n[l] < len(costs[l]) {
					costs[l][n[l]] = min(costs[l][n[l]], p.busy.Seconds())
				}
				n[l]++
				l = (l + 1) % len(costs)
			}
			if n[0] != len(mbs) || n[len(n)-1] != len(mbs) {
				b.Fatalf("%v extraction passes logged per layer for %d minibatches", n, len(mbs))
			}
		}
	}
	fmt.Fprintf(&out, "\nextraction imbalance projected from each minibatch's extraction time at 1 thread (the fastest of 3 runs; entries as the cost in parentheses); greedy hand-out in order, as the team does; the split tail counted as even:\n")
	for _, k := range ks {
		nw := samplers[1]
		fmt.Fprintf(&out, "k = %d:", k)
		for _, t := range []int{2, 4, 8, 16} {
			fmt.Fprintf(&out, " %d threads %.3f (%.3f);", t,
				projectImbalance(rows, costs, entries, []int{15, 10, 5}, k, t, nw.opt.MaxBulkEdges, nw.maxGroupEdges),
				projectImbalance(rows, entries, entries, []int{15, 10, 5}, k, t, nw.opt.MaxBulkEdges, nw.maxGroupEdges))
		}
		out.WriteString("\n")
	}
	fmt.Fprintf(&out, "\nplan's share of an epoch at 1 thread, best k above: epoch plan / (epoch plan + %d seeds' sampling)\n", a.Rows)
	for _, k := range ks {
		c := one[k]
		epoch := time.Duration(float64(median(c.off)) * float64(a.Rows) / float64(nseeds))
		fmt.Fprintf(&out, "k = %d: %.2f%% (an epoch's sampling about %.1f s)\n", k, 100*frac(epochPlan, epochPlan+epoch), epoch.Seconds())
	}
	os.Stdout.WriteString(out.String()) // b.Log would cut it to its first lines
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

// perPass returns d, summed over rounds, per round in ms.
func perPass(d time.Duration, rounds int) float64 { return ms(d) / float64(rounds) }

func frac(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// amdahl is the efficiency at n threads of work with serial part s and
// parallel part p at one thread: (s+p) / (n·(s + p/n)).
func amdahl(s, p time.Duration, n int) string {
	if s+p <= 0 {
		return "-"
	}
	t1 := s.Seconds() + p.Seconds()
	return fmt.Sprintf("%.3f", t1/(float64(n)*(s.Seconds()+p.Seconds()/float64(n))))
}

// BenchmarkNodeWiseGroupSize measures what a group's size costs one
// thread: the sampler takes at least 2·Threads minibatches a group (so
// that the extraction has two a thread), which at 16 threads is 32
// minibatches, far more than the cache budget (GroupCacheBytes) holds at
// the deeper layers. Setting minGroup at 1 thread to what T threads would
// choose shows, on a machine with few cores, how much slower each thread's
// work gets from the larger groups alone. Rounds interleave the sizes; the
// samples are the same for every size (checked by the sampled edges).
// Environment: BULKSAMPLE_PHASE_GRAPH, BULKSAMPLE_PHASE_SEEDS (default
// 262144), BULKSAMPLE_PHASE_K (one k, default 64), BULKSAMPLE_PHASE_MINGROUP
// (default 2,8,32: what 1, 4 and 16 threads choose), BULKSAMPLE_PHASE_ROUNDS
// (default 5).
func BenchmarkNodeWiseGroupSize(b *testing.B) {
	a, graph := benchGraph(b)
	k := benchInts(b, "BULKSAMPLE_PHASE_K", "64")[0]
	groups := benchInts(b, "BULKSAMPLE_PHASE_MINGROUP", "2,8,32")
	rounds := benchInts(b, "BULKSAMPLE_PHASE_ROUNDS", "5")[0]
	mbs := phaseSeeds(a.Rows, min(benchInts(b, "BULKSAMPLE_PHASE_SEEDS", "262144")[0], a.Rows), 1024)
	nws := make([]*NodeWise, len(groups))
	walls := make([][]time.Duration, len(groups))
	var edges int64
	for i, g := range groups {
		nw, err := NewNodeWise(a, NodeWiseOptions{Fanouts: []int{15, 10, 5}, Seed: 1, Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		nw.minGroup = g
		nws[i] = nw
	}
	pass := func(nw *NodeWise) time.Duration {
		start := time.Now()
		var e int64
		for lo := 0; lo < len(mbs); lo += k {
			bulk, err := nw.SampleBulk(context.Background(), 0, lo, mbs[lo:min(lo+k, len(mbs))])
			if err != nil {
				b.Fatal(err)
			}
			e += bulk.SampledEdges()
			bulk.Release()
		}
		if edges != 0 && e != edges {
			b.Fatalf("%d sampled edges, %d before", e, edges)
		}
		edges = e
		return time.Since(start)
	}
	for b.Loop() {
		for _, nw := range nws {
			pass(nw) // warm
		}
		for r := range rounds {
			for i := range nws {
				j := (i + r) % len(nws)
				walls[j] = append(walls[j], pass(nws[j]))
			}
		}
	}
	fmt.Printf("graph %s, %d seeds, k = %d, 1 thread, %d rounds (median, min-max)\n", graph, len(mbs)*1024, k, rounds)
	for i, g := range groups {
		w := slices.Clone(walls[i])
		slices.Sort(w)
		fmt.Printf("minGroup %d: %.1f ms (%.1f-%.1f), %.2fM SEPS, x%.3f of minGroup %d's median\n", g, ms(w[len(w)/2]), ms(w[0]), ms(w[len(w)-1]),
			float64(edges)/w[len(w)/2].Seconds()/1e6, w[len(w)/2].Seconds()/median(walls[0]).Seconds(), groups[0])
	}
}

// median returns the upper median of xs (durations or figures), leaving
// xs as it was.
func median[T cmp.Ordered](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// appendLayerSizes appends, per layer, each minibatch's rows and entries
// in bulk to rows and entries (made when first).
func appendLayerSizes(rows, entries [][]float64, bulk *Bulk, first bool) ([][]float64, [][]float64) {
	if first {
		rows, entries = make([][]float64, len(bulk.Layers)), make([][]float64, len(bulk.Layers))
	}
	for l := range bulk.Layers {
		la := &bulk.Layers[l]
		for m := range bulk.Len() {
			rows[l] = append(rows[l], float64(la.PtrStart[m+1]-la.PtrStart[m]-1))
			entries[l] = append(entries[l], float64(la.EdgeStart[m+1]-la.EdgeStart[m]))
		}
	}
	return rows, entries
}

// projectImbalance returns the extraction's imbalance at t threads: over
// all groups, the sum of the groups' finishing times over the sum of their
// even shares, with minibatch m's cost at layer l cost[l][m]. Groups are
// formed as sampleLayer forms them (at least 2t minibatches, the caps
// capEdges and maxEdges on rows times fanout), within bulks of k; whole
// minibatches go one at a time to the goroutine that is free first; the
// last ng mod t of a group, from the first with splitExtractPicks entries,
// are split over the threads (counted as even: the barriers are not
// modelled).
func projectImbalance(rows, cost, entries [][]float64, fanouts []int, k, t int, capEdges, maxEdges int64) float64 {
	var makespan, even float64
	for l, s := range fanouts {
		n := len(rows[l])
		for b0 := 0; b0 < n; b0 += k {
			b1 := min(b0+k, n)
			for m0 := b0; m0 < b1; {
				m1, gc := m0, int64(0)
				for m1 < b1 {
					cm := int64(rows[l][m1]) * int64(max(s, 1))
					if m1 > m0 && (gc+cm > maxEdges || m1-m0 >= 2*t && gc+cm > capEdges) {
						break
					}
					gc += cm
					m1++
				}
				ng := m1 - m0
				split := ng - ng%t
				for split < ng && entries[l][m0+split] < splitExtractPicks {
					split++
				}
				free := make([]float64, t)
				var total, tail float64
				for i := range ng {
					c := cost[l][m0+i]
					total += c
					if i < split {
						j := slices.Index(free, slices.Min(free))
						free[j] += c
					} else {
						tail += c / float64(t)
					}
				}
				makespan += slices.Max(free) + tail
				even += total / float64(t)
				m0 = m1
			}
		}
	}
	return makespan / even
}
