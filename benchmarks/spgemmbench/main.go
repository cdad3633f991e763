package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// errUsage marks a command-line error already reported with the usage.
var errUsage = errors.New("usage error")

// run executes the command line args and returns the exit code: 0 on
// success, 1 on a failed run, 2 on a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	res, err := runBench(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spgemmbench: %v\n", err)
		return 1
	}
	table := res.markdown()
	if cfg.out != "" {
		if err := os.WriteFile(cfg.out, []byte(table), 0o644); err != nil {
			fmt.Fprintf(stderr, "spgemmbench: write --out: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "spgemmbench: wrote %s\n", cfg.out)
	}
	fmt.Fprint(stdout, table)
	if cfg.json {
		if err := writeJSON(stdout, res.summary()); err != nil {
			fmt.Fprintf(stderr, "spgemmbench: %v\n", err)
			return 1
		}
	}
	if res.mismatch != nil {
		fmt.Fprintf(stderr, "spgemmbench: %v\n", res.mismatch)
		return 1
	}
	return 0
}
