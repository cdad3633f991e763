package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestByteSize: sizes in bytes and binary units parse; signs, fractions,
// decimal units, empty numbers and overflow are refused.
func TestByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  bool
	}{
		{"0", 0, false},
		{"4096", 4096, false},
		{"4096B", 4096, false},
		{"512KiB", 512 << 10, false},
		{"64MiB", 64 << 20, false},
		{"2GiB", 2 << 30, false},
		{"1TiB", 1 << 40, false},
		{"8388607TiB", 8388607 << 40, false},
		{"8388608TiB", 0, true},
		{"", 0, true},
		{"MiB", 0, true},
		{"-1", 0, true},
		{"+5", 0, true},
		{"1.5GiB", 0, true},
		{"64MB", 0, true},
		{"64 MiB", 0, true},
		{"0x10", 0, true},
		{"99999999999999999999", 0, true},
	} {
		var b byteSize
		err := b.Set(tc.in)
		if (err != nil) != tc.err || (!tc.err && int64(b) != tc.want) {
			t.Errorf("Set(%q) = %d, %v; want %d, error %v", tc.in, b, err, tc.want, tc.err)
		}
		if err == nil && b.String() != fmt.Sprint(tc.want) {
			t.Errorf("Set(%q): String() = %q", tc.in, b.String())
		}
	}
}

// TestSampleBatchFlags: --pull-batch and --push-batch reach the sampler
// (a small bound makes more rounds of the same sample, the single-process
// digest, where overlapArgs make several groups of minibatches a layer),
// a malformed size is a usage error naming the flag, and in one process
// they are errors, not ignored.
func TestSampleBatchFlags(t *testing.T) {
	g := distGraph(t)
	want := overlapReference(t, g)
	for _, fetch := range []string{"pull", "push"} {
		rounds := map[string]int64{}
		for _, size := range []string{"0", "4KiB"} {
			args := append([]string{"--graph", g, "--inproc-ranks", "2", "--fetch", fetch, "--" + fetch + "-batch", size, "--json"}, sampleArgs...)
			code, out, stderr := runCLI(t, "sample", append(args, overlapArgs...)...)
			if code != 0 {
				t.Fatalf("--fetch %s --%s-batch %s: exit %d\n%s", fetch, fetch, size, code, stderr)
			}
			if got := digestOf(t, out); got != want {
				t.Errorf("--fetch %s --%s-batch %s: digest %s; want %s (one process)", fetch, fetch, size, got, want)
			}
			rounds[size] = lastJSON[distSummary](t, out).Exchange[fetch].Rounds
		}
		if rounds["0"] <= 0 || rounds["4KiB"] <= rounds["0"] {
			t.Errorf("--fetch %s: %d rounds at the default batch, %d at 4KiB; want more at 4KiB", fetch, rounds["0"], rounds["4KiB"])
		}
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--inproc-ranks", "2", "--pull-batch", "64MB"}, "-pull-batch"},
		{[]string{"--inproc-ranks", "2", "--push-batch", "-1"}, "-push-batch"},
		{[]string{"--pull-batch", "64MiB"}, "--pull-batch: only in a distributed run"},
		{[]string{"--push-batch", "1MiB"}, "--push-batch: only in a distributed run"},
		// Bounds that no round would follow.
		{[]string{"--inproc-ranks", "2", "--method", "ladies", "--pull-batch", "1MiB"}, "--pull-batch 1048576: --method ladies: applies to method node"},
		{[]string{"--inproc-ranks", "2", "--replicate-graph", "--push-batch", "1MiB"}, "--push-batch 1048576: --replicate-graph true: applies to a split graph"},
		{[]string{"--inproc-ranks", "2", "--fetch", "push", "--pull-batch", "1MiB"}, "--pull-batch 1048576: --fetch push: makes no rounds with fetch push"},
		{[]string{"--inproc-ranks", "2", "--fetch", "pull", "--push-batch", "1MiB"}, "--push-batch 1048576: --fetch pull: makes no rounds with fetch pull"},
	} {
		code, _, stderr := runCLI(t, "sample", append([]string{"--graph", g}, append(tc.args, sampleArgs...)...)...)
		if code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d; want 2 and %q:\n%s", tc.args, code, tc.msg, stderr)
		}
	}
}
