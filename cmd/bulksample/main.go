package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/progress"
)

// command is one subcommand of the CLI.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

// env is what a command may touch of the process: its output streams, and
// the profile its --profile flag asks for (profile.go).
type env struct {
	stdout, stderr io.Writer
	profile        profileFlags
	running        *runningProfile
	// verbose is -v: the lines that only a closer look needs (notes).
	verbose bool
	// json is the command's --json flag, once newFlags registered it.
	json *bool
	// bar is the status bar drawn last (status, loading), which the next
	// one replaces.
	bar *progress.Bar
}

// notes returns where the lines of -v go: the costs hidden in each phase
// (page faults, GC: notePhase), per-phase times and what a command is
// doing, which a progress bar shows on a terminal. Without -v they go
// nowhere.
func (e *env) notes() io.Writer {
	if e.verbose {
		return e.stderr
	}
	return io.Discard
}

// bars returns where progress bars are drawn: standard error when it is a
// terminal, the command is not in --json mode and the process is not a
// rank other than 0 of an MPI launch; nil (no bar) otherwise.
func (e *env) bars() io.Writer {
	if e.json != nil && *e.json || dist.LaunchedRank() > 0 || !progress.Terminal(e.stderr) {
		return nil
	}
	return e.stderr
}

// status says what the command is doing (loading, generating) and returns
// the bar that shows it on a terminal, where the line goes to notes only
// (-v): the bar says it, and clears itself when finished. Elsewhere the
// line goes to standard error, or with quiet (work that a command's
// default output leaves unsaid, as train's loading) to notes. Finish the
// bar when the work is done.
func (e *env) status(quiet bool, format string, a ...any) *progress.Bar {
	msg := fmt.Sprintf(format, a...)
	e.bar.Finish()
	w := e.bars()
	if w != nil || quiet {
		fmt.Fprintln(e.notes(), msg)
	} else {
		fmt.Fprintln(e.stderr, msg)
	}
	if w == nil {
		return nil
	}
	e.bar = progress.Start(w, msg, 0)
	return e.bar
}

func commands() []command {
	return []command{
		{"gen", "generate a synthetic graph (R-MAT or labelled planted partition)", runGen},
		{"convert", "convert a graph or dataset between formats", runConvert},
		{"info", "print the size, degree statistics and split of a graph or dataset", runInfo},
		{"spgemm", "multiply sparse matrices (A·B, or Q·A for a random row selection Q)", runSpGEMM},
		{"sample", "sample minibatches in bulk and report sampled edges per second", runSample},
		{"train", "train GraphSAGE or GCN on bulk-sampled minibatches", runTrain},
		{"device", "describe the CUDA device and what bulksample loads for it (libraries, kernels)", runDevice},
	}
}

func main() {
	ctx, stop := notifyContext(context.Background(), func(msg string, code int) {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(code)
	})
	code := run(ctx, os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the process exit code:
// 0 on success, 1 on a failed run, 2 on a usage error.
func run(ctx context.Context, args []string, e *env) (code int) {
	defer func() {
		// A panic is a bug in bulksample, never the user's fault: report it as one.
		if r := recover(); r != nil {
			_ = e.stopProfile() // keep what the profile has so far
			fmt.Fprintf(e.stderr, "bulksample: internal error: %v\n%s\nplease report this as a bug\n", r, debug.Stack())
			code = 1
		}
	}()
	switch {
	case len(args) == 0:
		usage(e.stderr)
		return 2
	case args[0] == "help" && len(args) > 1:
		// bulksample help train: the command's own --help.
		args = []string{args[1], "--help"}
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
		usage(e.stdout)
		return 0
	case args[0] == "version" || args[0] == "--version" || args[0] == "-version":
		fmt.Fprintf(e.stdout, "bulksample %s\n%s", version(), buildReport())
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, e, args[1:])
		e.bar.Finish() // a status bar the command left drawn
		if perr := e.stopProfile(); perr != nil {
			// The command's own error, if any, is the one to report first.
			err = errors.Join(err, perr)
		}
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		default:
			if code, msg, ok := stopReport(ctx, c.name, err); ok {
				if msg != "" { // "": printed already (reportStop)
					fmt.Fprintln(e.stderr, msg)
				}
				return code
			}
			fmt.Fprintf(e.stderr, "bulksample %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(e.stderr, "bulksample: unknown command %q (want %s)\nRun 'bulksample help' for usage.\n", args[0], commandNames())
	return 2
}

// commandNames lists the commands, separated by commas.
func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: bulksample <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'bulksample <command> --help' for a command's flags, 'bulksample --version' for the version.")
}

// loading starts the report of loading path: on a terminal a bar, and
// elsewhere nothing (nil). The dataset's own progress lines
// (dataset.LoadOptions.Progress, which name the format) go to the writer
// it returns: standard error off a terminal, unless quiet (train, whose
// default output is its header, epochs and result), and notes otherwise.
func (e *env) loading(quiet bool, path string) (io.Writer, *progress.Bar) {
	e.bar.Finish()
	if w := e.bars(); w != nil {
		e.bar = progress.Start(w, "loading "+path, 0)
		return e.notes(), e.bar
	}
	if quiet {
		return e.notes(), nil
	}
	return e.stderr, nil
}
