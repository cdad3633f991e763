package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/atomicfile"
)

// errUsage marks a command-line error whose message has already been printed
// with the command's usage; the process exits with status 2.
var errUsage = errors.New("usage error")

// newFlags returns a flag set for a command that prints its usage, with the
// one-line description: to e.stdout when asked for (--help, exit 0), to
// e.stderr after a usage error (exit 2). It registers the flags every command
// accepts: --json, and --profile and --profile-dir (see env.startProfile).
func newFlags(e *env, name, synopsis, description string) (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	out := &flagOutput{stdout: e.stdout, stderr: e.stderr}
	if dist.LaunchedRank() > 0 {
		// Under mpirun or srun every rank parses the same command line:
		// rank 0 alone prints a usage error (or the help), not p copies.
		out.stdout, out.stderr = io.Discard, io.Discard
	}
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: bulksample %s %s\n\n%s\n\nflags:\n", name, synopsis, description)
		fs.PrintDefaults()
	}
	jsonOut := fs.Bool("json", false, "print the run's figures as one JSON object on the last line of standard output")
	e.profile.register(fs)
	return fs, jsonOut
}

// flagOutput is the output of newFlags' flag sets. While parseFlags runs,
// it holds what the flag package prints, so that parseFlags can send help
// that was asked for to stdout and a usage error to stderr; otherwise it
// writes to stderr.
type flagOutput struct {
	stdout, stderr io.Writer
	parsing        bool
	buf            bytes.Buffer
}

func (o *flagOutput) Write(p []byte) (int, error) {
	if o.parsing {
		return o.buf.Write(p)
	}
	return o.stderr.Write(p)
}

// parseFlags parses args into fs. It returns flag.ErrHelp for --help (after
// printing the usage to stdout) and errUsage (after printing the problem and
// the usage to stderr) for bad flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, _ := fs.Output().(*flagOutput)
	if out != nil {
		out.parsing = true
	}
	err := fs.Parse(args)
	if out != nil {
		out.parsing = false
		w := out.stderr
		if errors.Is(err, flag.ErrHelp) {
			w = out.stdout
		}
		_, _ = out.buf.WriteTo(w)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// isSet reports whether the flag name was given on fs's command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// sameFile reports whether the paths a and b name the same existing file
// (through links too).
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// checkOutputFile returns an error when the output file path cannot be
// written (atomicfile.Check); an empty path (no output asked for) is fine.
// The commands check their outputs before the work whose result they hold
// (generating a graph, training), not only when they write them.
func checkOutputFile(path string) error {
	if path == "" {
		return nil
	}
	return atomicfile.Check(path)
}

// usageError prints msg and the command's usage and returns errUsage.
func usageError(fs *flag.FlagSet, format string, a ...any) error {
	fmt.Fprintf(fs.Output(), "bulksample %s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return errUsage
}

// fanoutOrder is the part of --fanout's help that compares its layer order
// with DGL's and PyG's.
const fanoutOrder = "\nOrder: seeds' layer first, and Blocks[0] is the seeds' block, as PyG's num_neighbors\n" +
	"(NeighborLoader(num_neighbors=[25, 10]) = --fanout 25,10); DGL lists the input layer first\n" +
	"(MultiLayerNeighborSampler([10, 25]) = --fanout 25,10, and DGL's blocks[-1] is our Blocks[0])"

// writeJSON writes v as a single line of JSON to w.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON summary: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
