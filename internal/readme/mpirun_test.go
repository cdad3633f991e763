package readme

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist/mpitest"
	"github.com/bulksample/bulksample/internal/testenv"
)

// shellBlocks returns the contents of a markdown file's ``` blocks that are
// not Go, one slice of lines per block, with the line each starts on.
func shellBlocks(text string) (blocks [][]string, lines []int) {
	var cur []string
	in, start := false, 0
	for i, line := range strings.Split(text, "\n") {
		switch t := strings.TrimSpace(line); {
		case !in && strings.HasPrefix(t, "```") && t != "```go":
			in, start, cur = true, i+2, nil
		case !in && t == "```go":
			in, start, cur = true, -1, nil // skipped: goBlocks' business
		case in && t == "```":
			in = false
			if start > 0 {
				blocks, lines = append(blocks, cur), append(lines, start)
			}
		case in:
			cur = append(cur, line)
		}
	}
	return blocks, lines
}

// TestREADMEMpirunLines runs every `mpirun` line of the README and of
// docs/*.md as printed,
// after the `export` lines of its block, in a folder holding
// bin/bulksample and the inputs the lines name (g.bsn, A.npz, B.npz; Cora
// through $BULKSAMPLE_DATA), with an environment that holds none of Open
// MPI's own run-as-root or oversubscription settings: the lines must work
// as a user copies them, as root on a machine with fewer cores than ranks
// too. Before, they failed there (Open MPI refused root, then found "not
// enough slots") and the fix was a paragraph later. Training lines get
// --epochs 1 appended, to bound the test's time. Only lines that begin
// with `mpirun ` run: a line that needs a cluster or a GPU (srun, sbatch,
// --device cuda) is written with another launcher, or without bin/, and is
// not run.
func TestREADMEMpirunLines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's mpirun lines; skipped in -short")
	}
	mpitest.Require(t)
	root, docs := readDocs(t)
	// Cora is where `--data cora` finds it from the repository: in
	// shared/data in one of its parents.
	data := ""
	for d := root; data == ""; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "shared", "data", "cora.npz")); err == nil {
			data = filepath.Join(d, "shared", "data")
		} else if filepath.Dir(d) == d {
			testenv.MissingData(t, "the README's training line reads Cora, which no shared/data above %s holds", root)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin", "bulksample")
	if err := os.Rename(mpitest.BuildCLI(ctx, t, filepath.Join("..", "..")), bin); err != nil {
		t.Fatal(err)
	}
	// The environment of a user's shell: no Open MPI settings of ours or
	// of the test's caller; loopback only, as every test here.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OMPI_") && !strings.HasPrefix(kv, "PMIX_") {
			env = append(env, kv)
		}
	}
	env = append(env, "BULKSAMPLE_DATA="+data, "OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_tcp_if_include=lo",
		"OMPI_MCA_oob_tcp_if_include=lo", "PMIX_MCA_gds=hash")
	sh := func(timeout time.Duration, script string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-c", script)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	for _, c := range []string{"gen rmat --scale 15 --seed 1 --out g.bsn", "gen rmat --scale 8 --seed 1 --out a.bsn",
		"convert a.bsn A.npz", "convert a.bsn B.npz"} {
		if out, err := sh(time.Minute, "bin/bulksample "+c); err != nil {
			t.Fatalf("bulksample %s: %v\n%s", c, err, out)
		}
	}
	ran := map[string]int{}
	for _, d := range docs {
		blocks, lines := shellBlocks(string(d.text))
		for b, block := range blocks {
			var exports []string
			for _, l := range block {
				if strings.HasPrefix(l, "export ") {
					exports = append(exports, l)
				}
			}
			for i, l := range block {
				if !strings.HasPrefix(l, "mpirun ") {
					continue
				}
				if strings.Contains(l, " train ") {
					l += " --epochs 1"
				}
				script := strings.Join(append(exports, l), "\n")
				out, err := sh(3*time.Minute, script)
				if err != nil {
					t.Errorf("%s:%d: %s: %v\n%s", d.name, lines[b]+i, l, err, out)
					continue
				}
				if !strings.Contains(out, `"version"`) {
					t.Errorf("%s:%d: %s printed no JSON summary:\n%s", d.name, lines[b]+i, l, out)
				}
				ran[d.name]++
			}
		}
	}
	// The README's tour launches one job; the distributed sections, now
	// docs/distributed.md, hold the 4 lines the README held before.
	for name, want := range map[string]int{"README.md": 1, "docs/distributed.md": 4} {
		if ran[name] < want {
			t.Errorf("ran %d mpirun lines of %s; want at least %d", ran[name], name, want)
		}
	}
}
