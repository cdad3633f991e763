package main

// The rows and columns of the table: what to extend.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

// runCase is one row: a run of `bulksample sample` on the graph.
type runCase struct {
	name    string
	ranks   int      // 0: one process; else mpirun -np ranks
	threads int      // --threads of the process (of each rank)
	flags   []string // added to the sample command line
}

// The table (issue 31, measured 2026-11-27 on the 16-core host):
// one process at 16 threads, and 4 ranks of 4 threads and 16 of 1 with
// pull, push and a replicated graph, and --fetch auto (the default since:
// pull or push per layer by the byte model); and push with --overlap on at
// 4 threads a rank, where the round in flight has cores beside the
// extraction's (off by default: on 2 shared cores it was slower); last,
// pull at 16 ranks with 64 MiB rounds, which hold a quarter of the default
// batches' memory and send more (groups pulled in parts).
const defaultTableCases = "1 process x 16 threads=0:16:;" +
	"np 4 x 4 threads, pull=4:4:--fetch pull;np 4, push=4:4:--fetch push;np 4, auto=4:4:--fetch auto;np 4, replicated=4:4:--replicate-graph;" +
	"np 4, push, overlap=4:4:--fetch push --overlap on;" +
	"np 16 x 1 thread, pull=16:1:--fetch pull;np 16, push=16:1:--fetch push;np 16, auto=16:1:--fetch auto;np 16, replicated=16:1:--replicate-graph;" +
	"np 16, pull, 64 MiB rounds=16:1:--fetch pull --pull-batch 64MiB"

// The papers100M-sized runs: the goals are one process at 16
// threads (warm) and mpirun -np 16 push; auto is the default.
const defaultPapersCases = "1 process x 16 threads=0:16:;np 16 x 1 thread, push=16:1:--fetch push;np 16, auto=16:1:--fetch auto"

// parseCases parses NAME=RANKS:THREADS:FLAGS;... (see --cases).
func parseCases(s string) ([]runCase, error) {
	var out []runCase
	for item := range strings.SplitSeq(s, ";") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		name, spec, ok := strings.Cut(item, "=")
		f := strings.SplitN(spec, ":", 3)
		if !ok || len(f) != 3 || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("case %q: want NAME=RANKS:THREADS:FLAGS", item)
		}
		ranks, err1 := strconv.Atoi(f[0])
		threads, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || ranks < 0 || threads < 1 {
			return nil, fmt.Errorf("case %q: RANKS >= 0 and THREADS >= 1 are integers", item)
		}
		out = append(out, runCase{name: strings.TrimSpace(name), ranks: ranks, threads: threads, flags: strings.Fields(f[2])})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no case in %q", s)
	}
	return out, nil
}

// command returns the case's command line: the static CLI for one
// process, with reps passes, mpirun of the MPI build for ranks (on one
// node, shared memory between them, every rank unbound, as the issue
// measured), which samples once.
func (rc runCase) command(ctx context.Context, c *config, common []string, reps int) *exec.Cmd {
	args := append(append(append([]string{}, common...), "--threads", strconv.Itoa(rc.threads)), rc.flags...)
	if rc.ranks == 0 {
		return exec.CommandContext(ctx, c.bulksample, append(args, "--reps", strconv.Itoa(reps))...)
	}
	full := append([]string{"--oversubscribe", "--bind-to", "none", "-np", strconv.Itoa(rc.ranks), c.bulksampleMPI}, args...)
	cmd := exec.CommandContext(ctx, c.mpirun, full...)
	cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_MCA_oob_tcp_if_include=lo", "PMIX_MCA_gds=hash")
	return cmd
}

// column is one column of the table: its header, and its cell of a run
// (row) given the runs of the same graph (rows, the first one the
// reference of ratios).
type column struct {
	header string
	cell   func(r result, rows []result) string
}

var columns = []column{
	{"run", func(r result, _ []result) string { return r.Case }},
	{"SEPS (M)", func(r result, _ []result) string { return fmtNum(num(r.Summary, "seps")/1e6, 1) }},
	{"vs one process", func(r result, rows []result) string {
		for _, o := range rows {
			if o.Summary != nil && num(o.Summary, "ranks") == 0 {
				return fmtNum(num(r.Summary, "seps")/num(o.Summary, "seps"), 2)
			}
		}
		return ""
	}},
	{"vs replicated", func(r result, rows []result) string {
		for _, o := range rows {
			if o.Summary != nil && o.Summary["fetch"] == "replicated" && num(o.Summary, "ranks") == num(r.Summary, "ranks") && num(r.Summary, "ranks") > 0 {
				return fmtNum(num(r.Summary, "seps")/num(o.Summary, "seps"), 2)
			}
		}
		return ""
	}},
	{"cold SEPS (M)", func(r result, _ []result) string { return fmtNum(num(r.Summary, "cold_seps")/1e6, 1) }},
	{"seconds", func(r result, _ []result) string { return fmtNum(num(r.Summary, "seconds"), 2) }},
	{"fetch per layer", func(r result, _ []result) string { return fetchLayers(r.Summary) }},
	{"work s, busiest rank (x mean)", func(r result, _ []result) string {
		w := num(r.Summary, "rank_spread", "work_seconds", "max")
		if w == 0 {
			return ""
		}
		return fmt.Sprintf("%s (%s)", fmtNum(w, 2), fmtNum(num(r.Summary, "rank_spread", "work_max_over_mean"), 2))
	}},
	{"exchange s, busiest rank", func(r result, _ []result) string {
		return fmtNum(num(r.Summary, "rank_spread", "exchange_seconds", "max"), 2)
	}},
	{"idle s, busiest rank", func(r result, _ []result) string {
		return fmtNum(num(r.Summary, "rank_spread", "idle_seconds", "max"), 2)
	}},
	{"digest s", func(r result, _ []result) string { return fmtNum(num(r.Summary, "digest_seconds"), 2) }},
	{"sample traffic, busiest rank (MB)", func(r result, _ []result) string {
		return fmtNum(num(r.Summary, "traffic", "sample", "bytes_sent_max")/1e6, 1)
	}},
	{"peak RSS, largest rank (GB)", func(r result, _ []result) string {
		v := num(r.Summary, "peak_rss_max")
		if v == 0 {
			v = num(r.Summary, "peak_rss_bytes")
		}
		return fmtNum(v/1e9, 2)
	}},
	{"digest", func(r result, rows []result) string {
		d, _ := r.Summary["digest"].(string)
		for _, o := range rows {
			od, ok := o.Summary["digest"].(string)
			switch {
			case !ok || od == "":
				continue
			case o.Case == r.Case:
				return "the reference"
			case od == d:
				return "= " + o.Case
			}
			return "DIFFERS from " + o.Case
		}
		return ""
	}},
}

// fetchLayers returns how a distributed run fetched each layer (its JSON's
// fetch_layers): pull, push or mixed (both, over the ranks and bulks),
// comma-separated from the seeds' layer; "" when it has none.
func fetchLayers(s map[string]any) string {
	layers, _ := s["fetch_layers"].([]any)
	var out []string
	for _, l := range layers {
		m, _ := l.(map[string]any)
		pull, push := num(m, "pull"), num(m, "push")
		switch {
		case pull > 0 && push > 0:
			out = append(out, "mixed")
		case pull > 0:
			out = append(out, "pull")
		case push > 0:
			out = append(out, "push")
		default:
			out = append(out, "-")
		}
	}
	return strings.Join(out, ",")
}

// num returns the number at path in the JSON object s (0 when absent).
func num(s map[string]any, path ...string) float64 {
	var v any = s
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = m[k]
	}
	f, _ := v.(float64)
	return f
}

// fmtNum formats x with digits decimals; "" for 0 (absent).
func fmtNum(x float64, digits int) string {
	if x == 0 {
		return ""
	}
	return strconv.FormatFloat(x, 'f', digits, 64)
}

// report returns the markdown of every graph's table so far.
func (b *bench) report() string {
	c := b.c
	m := benchutil.ThisMachine(c.threads)
	var s strings.Builder
	fmt.Fprintf(&s, "# Scaling table (scalebench)\n\n%s, %d logical CPUs, %s; load average at the start %s, at the end %s; %.0f s of the %.0f s budget spent.\n",
		m.CPU, m.Cores, m.Date, b.load, benchutil.LoadAveragesText(), time.Since(b.start).Seconds(), c.budget.Seconds())
	fmt.Fprintf(&s, "Every run: `sample --batch %d --bulk %d --fanout %s --seed 1 --digest --json` with its --seeds and --reps below, one cold pass then the warm ones (SEPS is the warm median with --reps >= 2); mpirun runs are `mpirun --oversubscribe --bind-to none -np P` on this one machine, shared memory between the ranks.\n",
		c.batch, c.bulk, c.fanout)
	var graph string
	var rows []result
	flush := func() {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&s, "\n## %s\n\n", graph)
		for _, r := range rows {
			if r.Case == "gen" && r.Summary != nil {
				fmt.Fprintf(&s, "Generated in %.1f s (peak RSS %.2f GB, %d nodes, %d stored edges).\n\n", r.Seconds, num(r.Summary, "peak_rss_bytes")/1e9,
					int64(num(r.Summary, "nodes")), int64(num(r.Summary, "edges")))
			}
		}
		var runs []result
		for _, r := range rows {
			if r.Case != "gen" {
				runs = append(runs, r)
			}
		}
		for i, col := range columns {
			if i > 0 {
				s.WriteString(" ")
			}
			fmt.Fprintf(&s, "| %s", col.header)
		}
		s.WriteString(" |\n")
		for i := range columns {
			if i == 0 {
				s.WriteString("|---")
			} else {
				s.WriteString("|---:")
			}
		}
		s.WriteString("|\n")
		for _, r := range runs {
			if r.Summary == nil {
				msg := firstLine(r.Error)
				if _, after, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "exit status") {
					msg = after
				}
				fmt.Fprintf(&s, "| %s | failed: %s |%s\n", r.Case, strings.ReplaceAll(msg, "|", "/"), strings.Repeat(" |", len(columns)-2))
				continue
			}
			for i, col := range columns {
				if i > 0 {
					s.WriteString(" ")
				}
				fmt.Fprintf(&s, "| %s", col.cell(r, runs))
			}
			s.WriteString(" |\n")
		}
		for _, r := range rows {
			if r.Case == "gen" && r.Error != "" {
				fmt.Fprintf(&s, "\ngen failed: %s\n", firstLine(r.Error))
			}
		}
	}
	for _, r := range b.results {
		title := fmt.Sprintf("%s: %s, relabel %s", r.Part, r.Graph, r.Relabel)
		if title != graph {
			flush()
			graph, rows = title, nil
		}
		rows = append(rows, r)
	}
	flush()
	fmt.Fprintf(&s, "\nCommand: `scalebench %s`\n", strings.Join(c.args, " "))
	return s.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
