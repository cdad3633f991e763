package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/atomicfile"
	"github.com/bulksample/bulksample/sampling"
)

// errUsage marks a command-line error whose message has already been printed,
// with a line saying how to get the command's help; the process exits with
// status 2.
var errUsage = errors.New("usage error")

// newFlags returns a flag set for a command that prints its usage, with the
// one-line description, to e.stdout when asked for (--help, exit 0); after
// a usage error (exit 2) only the error goes to e.stderr, with a line saying
// how to get the usage (helpHint), as go and git do. It registers the flags every command
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
	e.json = jsonOut
	fs.BoolVar(&e.verbose, "v", false, "verbose: also print what each phase cost besides its time (page faults, GC), the per-phase\n"+
		"times of every epoch, and a progress line every few seconds where standard error is not a terminal")
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
// printing the usage to stdout) and errUsage (after printing the problem,
// in our words (flagProblem), and how to get the usage, to stderr) for bad
// flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, _ := fs.Output().(*flagOutput)
	if out != nil {
		out.parsing = true
	}
	err := fs.Parse(args)
	if out != nil {
		out.parsing = false
		if errors.Is(err, flag.ErrHelp) {
			_, _ = out.buf.WriteTo(out.stdout)
		}
		out.buf.Reset() // the flag package's own message and usage
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError(fs, "%s", flagProblem(fs, err))
	}
	return nil
}

// The errors of the flag package's Parse, which flagProblem rewords.
var (
	reUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	reNoValue   = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	reBadValue  = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-+([^:]*): (.*)$`)
)

// flagProblem rewords an error of fs.Parse, which names flags with one dash
// and reports a bad number as "parse error", in the CLI's terms: the flag
// with two dashes, its value, and what it wants ("--lr \"abc\": want a
// number").
func flagProblem(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if m := reUndefined.FindStringSubmatch(msg); m != nil {
		if m[1] == "seed" && fs.Lookup("split-seed") != nil {
			return "unknown flag --seed (the seed of the split is --split-seed)"
		}
		return fmt.Sprintf("unknown flag --%s", m[1])
	}
	if m := reNoValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value", m[1])
	}
	m := reBadValue.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value, name, why := m[1], m[2], m[3]
	if f := fs.Lookup(name); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case float64:
				why = "want a number"
			case int, int64:
				why = "want an integer"
			case uint, uint64:
				why = "want an integer >= 0"
			case bool:
				why = "want true or false"
			case time.Duration:
				why = "want a duration such as 90s or 5m"
			}
		}
	}
	return fmt.Sprintf("--%s %s: %s", name, value, why)
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

// namedFile is a file a command reads or writes, with what names it ("--split-out",
// "a file of --data Cora").
type namedFile struct{ what, path string }

// clobbers returns an error naming both when one of the outputs outs is
// one of the inputs ins (the same file through a symbolic or hard link
// too, os.SameFile) or the same path as another output: writing it would
// destroy the input, or one output the other. An empty path is no file.
func clobbers(outs, ins []namedFile) error {
	for i, o := range outs {
		if o.path == "" {
			continue
		}
		for _, in := range ins {
			if sameFile(o.path, in.path) {
				what := in.what
				if in.path != o.path {
					what += " (" + in.path + ")"
				}
				return fmt.Errorf("%s %s is %s, which the command reads: writing it would destroy it", o.what, o.path, what)
			}
		}
		for _, p := range outs[:i] {
			if p.path != "" && (filepath.Clean(p.path) == filepath.Clean(o.path) || sameFile(p.path, o.path)) {
				return fmt.Errorf("%s %s is also %s: give each output its own file", o.what, o.path, p.what)
			}
		}
	}
	return nil
}

// datasetFiles returns the files that loading the dataset at path reads
// (dataset.Inputs), each named as a file of flag ("IN", "--data"); none
// when path is "" or cannot be read (the load reports why).
func datasetFiles(flag, path string) []namedFile {
	if path == "" {
		return nil
	}
	files, err := dataset.Inputs(path)
	if err != nil {
		return nil
	}
	var out []namedFile
	for _, f := range files {
		what := flag
		if len(files) > 1 || f != path {
			what = "a file of " + flag + " " + path
		}
		out = append(out, namedFile{what, f})
	}
	return out
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

// usageError prints msg and how to get the command's usage (helpHint) and
// returns errUsage.
func usageError(fs *flag.FlagSet, format string, a ...any) error {
	fmt.Fprintf(fs.Output(), "bulksample %s: %s\n%s\n", fs.Name(), fmt.Sprintf(format, a...), helpHint(fs.Name()))
	return errUsage
}

// helpHint is the line that follows a usage error: where the usage is.
func helpHint(command string) string {
	return fmt.Sprintf("Run 'bulksample %s --help' for usage.", command)
}

// fanoutOrder is the part of --fanout's help that compares its layer order
// with DGL's and PyG's.
const fanoutOrder = "\nOrder: seeds' layer first, and Blocks[0] is the seeds' block, as PyG's num_neighbors\n" +
	"(NeighborLoader(num_neighbors=[25, 10]) = --fanout 25,10); DGL lists the input layer first\n" +
	"(MultiLayerNeighborSampler([10, 25]) = --fanout 25,10, and DGL's blocks[-1] is our Blocks[0])"

// budgetsText is the default column budgets of the layer-wise samplers as
// --fanout writes them ("512,512").
func budgetsText() string {
	var s []string
	for _, b := range sampling.DefaultBudgets() {
		s = append(s, strconv.Itoa(b))
	}
	return strings.Join(s, ",")
}

// writeJSON writes v as a single line of JSON to w.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON summary: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
