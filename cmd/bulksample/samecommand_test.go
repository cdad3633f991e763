package main

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// TestMPIRanksRunOtherFlags starts one mpirun job whose two ranks got
// other command lines (an MPMD launch, `-np 1 A : -np 1 B`): rank 1 must
// end the job with an error naming the flag and both values, where it used
// to sample another fanout (or seed) than rank 0 and print a wrong digest
// with exit status 0. A --threads that differs is allowed.
func TestMPIRanksRunOtherFlags(t *testing.T) {
	mpirun, exe := mpirunTest(t)
	g := distGraph(t)
	base := []string{"--graph", g, "--batch", "40", "--seeds", "200", "--digest"}
	for _, tc := range []struct {
		name  string
		extra []string // rank 1's flags beyond base
		want  string   // on stderr; "" for a job that must succeed
	}{
		{"fanout", []string{"--fanout", "10,5"}, `rank 1: this rank's command line differs from rank 0's: --fanout is "10,5" here, "15,10,5" on rank 0`},
		{"replication", []string{"--replication", "2"}, `--replication is "2" here, "1" on rank 0`},
		{"threads", []string{"--threads", "1"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mpmd := append(append([]string{"sample"}, base...), ":", "-np", "1", exe, "sample")
			start := time.Now()
			out, stderr, err := mpiRun(t, mpirun, 1, time.Minute, mpmd[0], append(append(mpmd[1:], base...), tc.extra...)...)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rank 1 with %v: %v\n%s\n%s", tc.extra, err, out, stderr)
			case tc.want != "" && (err == nil || !strings.Contains(stderr, tc.want)):
				t.Errorf("rank 1 with %v: err %v; want a failed job and %q on stderr\n%s\n%s", tc.extra, err, tc.want, out, stderr)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the job took %v to end; want under 10 s", d)
			}
		})
	}
}

// TestCommandDiff: the message names every flag that differs, a flag only
// one side knows, and another command.
func TestCommandDiff(t *testing.T) {
	line := func(name string, args ...string) string {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.String("fanout", "15,10,5", "")
		fs.Int("seed", 1, "")
		fs.Int("threads", 0, "")
		if name == "newer" {
			fs.Bool("extra", false, "")
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return commandLine(fs)
	}
	root := line("sample")
	for _, tc := range []struct {
		here, want string
	}{
		{line("sample", "--threads", "3"), ""},
		{line("sample", "--seed", "2", "--fanout", "5"), `--fanout is "5" here, "15,10,5" on rank 0; --seed is "2" here, "1" on rank 0`},
		{line("train"), `command "train" here, "sample" on rank 0`},
	} {
		if tc.want == "" {
			if tc.here != root {
				t.Errorf("%q and %q differ; want --threads ignored", tc.here, root)
			}
			continue
		}
		if got := commandDiff(tc.here, root); got != tc.want {
			t.Errorf("commandDiff(%q) = %q; want %q", tc.here, got, tc.want)
		}
	}
	newer := strings.Replace(line("newer"), "newer", "sample", 1)
	if got, want := commandDiff(root, newer), "rank 0 has --extra, unknown here"; !strings.Contains(got, want) {
		t.Errorf("commandDiff against a newer rank 0 = %q; want it to contain %q", got, want)
	}
	if got, want := commandDiff(newer, root), "--extra is unknown to rank 0"; !strings.Contains(got, want) {
		t.Errorf("commandDiff against an older rank 0 = %q; want it to contain %q", got, want)
	}
}
