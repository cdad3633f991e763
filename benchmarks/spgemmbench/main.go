package main

import (
	"context"
	"fmt"
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
	res, err := runBench(ctx, cfg, stderr)
	if err != nil {
		return benchutil.Fail(stderr, "spgemmbench", err)
	}
	rep := benchutil.Report{Program: "spgemmbench", Path: cfg.out, Text: res.markdown()}
	if cfg.json {
		rep.Summary = res.summary()
	}
	if err := rep.Write(stdout, stderr); err != nil {
		return benchutil.Fail(stderr, "spgemmbench", err)
	}
	if res.mismatch != nil {
		fmt.Fprintf(stderr, "spgemmbench: %v\n", res.mismatch)
		return 1
	}
	return 0
}
