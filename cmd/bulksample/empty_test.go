package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyInputs: sampling, training or describing (info) an empty graph,
// or training on data without the split training needs, exits 1 with a
// message naming the file (info exited 0).
func TestEmptyInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.txt", "")
	noEdges := write("isolated.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 0\n")
	triangle := write("triangle.txt", "0 1\n1 2\n2 0\n")
	gen := func(name string, args ...string) string {
		p := filepath.Join(dir, name)
		args = append([]string{"sbm", "--nodes", "300", "--classes", "3", "--out", p}, args...)
		if code, _, stderr := runCLI(t, "gen", args...); code != 0 {
			t.Fatalf("gen %q: exit %d\n%s", args, code, stderr)
		}
		return p
	}
	noSplit := gen("nosplit.bsn", "--split", "none")
	noTrain := gen("notrain.bsn", "--split", "random:0,0.5,0.5")
	for _, tc := range []struct {
		args []string
		file string
	}{
		{[]string{"sample", "--graph", empty}, empty},
		{[]string{"info", empty}, empty},
		{[]string{"info", noEdges}, noEdges},
		{[]string{"sample", "--graph", noEdges}, noEdges},
		{[]string{"train", "--data", empty, "--epochs", "1"}, empty},
		{[]string{"train", "--data", noEdges, "--model", "linear", "--epochs", "1"}, noEdges},
		{[]string{"train", "--data", triangle, "--epochs", "1"}, triangle},
		{[]string{"train", "--data", noSplit, "--epochs", "1"}, noSplit},
		{[]string{"train", "--data", noTrain, "--epochs", "1"}, noTrain},
	} {
		code, stdout, stderr := runCLI(t, tc.args[0], tc.args[1:]...)
		// The error is the last line; the progress lines before it name the file anyway.
		msg := lastLine(stderr)
		if code != 1 || !strings.HasPrefix(msg, "bulksample "+tc.args[0]+": ") || !strings.Contains(msg, tc.file) || strings.Contains(stdout, "SEPS") {
			t.Errorf("%q: exit %d, error %q, stdout %q; want 1 and a message naming %s", tc.args, code, msg, firstLine(stdout), tc.file)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
