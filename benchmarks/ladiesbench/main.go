package main

import (
	"context"
	"io"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

func main() { benchutil.Main(run) }

// run executes the command line args and returns the exit code: 0 on
// success, 1 on a failed run, 2 on a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if err != nil {
		return benchutil.ExitCode(err)
	}
	var rep benchutil.Report
	if cfg.cli != "" {
		md, sum, err := runSweep(ctx, cfg, stderr)
		if err != nil {
			return benchutil.Fail(stderr, "ladiesbench", err)
		}
		rep = benchutil.Report{Program: "ladiesbench", Path: cfg.out, Text: md}
		if cfg.json {
			rep.Summary = sum
		}
	} else {
		res, err := runBench(ctx, cfg, stderr)
		if err != nil {
			return benchutil.Fail(stderr, "ladiesbench", err)
		}
		rep = benchutil.Report{Program: "ladiesbench", Path: cfg.out, Text: res.markdown()}
		if cfg.json {
			rep.Summary = res.summary()
		}
	}
	if err := rep.Write(stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "ladiesbench", err)
	}
	return 0
}
