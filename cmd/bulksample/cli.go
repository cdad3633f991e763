package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
)

// errUsage marks a command-line error whose message has already been printed
// with the command's usage; the process exits with status 2.
var errUsage = errors.New("usage error")

// newFlags returns a flag set for a command that prints its usage, with the
// one-line description, to e.stderr, and registers the flags every command
// accepts: --json, and --profile and --profile-dir (see env.startProfile).
func newFlags(e *env, name, synopsis, description string) (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: bulksample %s %s\n\n%s\n\nflags:\n", name, synopsis, description)
		fs.PrintDefaults()
	}
	jsonOut := fs.Bool("json", false, "print the run's figures as one JSON object on the last line of standard output")
	e.profile.register(fs)
	return fs, jsonOut
}

// parseFlags parses args into fs. It returns flag.ErrHelp for --help and
// errUsage (after printing the problem and the usage) for bad flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// usageError prints msg and the command's usage and returns errUsage.
func usageError(fs *flag.FlagSet, format string, a ...any) error {
	fmt.Fprintf(fs.Output(), "bulksample %s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return errUsage
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
