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

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
)

// goBlocks returns the contents of the ```go blocks of markdown text, with
// the line each starts on.
func goBlocks(text string) (blocks []string, lines []int) {
	var cur []string
	in, start := false, 0
	for i, line := range strings.Split(text, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```go":
			in, start, cur = true, i+2, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks, lines = append(blocks, strings.Join(cur, "\n")+"\n"), append(lines, start)
		case in:
			cur = append(cur, line)
		}
	}
	return blocks, lines
}

func TestGoBlocks(t *testing.T) {
	blocks, _ := goBlocks("text\n```go\npackage main\n```\n```\nshell\n```\n  ```go\nx\n  ```\n")
	if len(blocks) != 2 || blocks[0] != "package main\n" || blocks[1] != "x\n" {
		t.Errorf("goBlocks = %q", blocks)
	}
}

// TestREADMEGoBlocks builds and runs every Go code block of README.md and
// of docs/*.md, as a reader who copies it would: each must be a complete
// program (package main) that exits 0, run from a folder of its own inside
// the repository, not from its root (a relative ../shared/data path worked
// only there). A block that must not run (one that needs a GPU or a
// cluster) is fenced as another language than go.
func TestREADMEGoBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the README's programs; skipped in -short")
	}
	_, docs := readDocs(t)
	for _, b := range docBlocks(t, docs) {
		// The program lives under testdata, inside the module (so that it
		// imports bulksample's packages) but outside ./... patterns.
		dir, err := os.MkdirTemp("testdata", "block")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		runBlock(t, b, dir, nil)
	}
}

// TestREADMEGoBlocksFreshClone runs every Go code block of README.md and
// of docs/*.md as in
// a fresh clone, where no shared data folder exists: from a module of its
// own outside the repository (bulksample replaced by this checkout), so
// that dataset.FindShared finds nothing above the program's folder, the
// executable's or $BULKSAMPLE_DATA (unset). A block that needs a data set
// must find it or make one (the first generates a graph of Cora's size
// when cora.npz is not found).
func TestREADMEGoBlocksFreshClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the README's programs; skipped in -short")
	}
	root, docs := readDocs(t)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range docBlocks(t, docs) {
		dir := t.TempDir()
		gomod := "module readmeblock\n\ngo 1.26.0\n\nrequire github.com/bulksample/bulksample v0.0.0\n\nreplace github.com/bulksample/bulksample => " + root + "\n"
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
			t.Fatal(err)
		}
		// -mod=mod adds bulksample's own requirements to the module from
		// the local module cache; the proxy is off, so nothing is fetched.
		runBlock(t, b, dir, []string{"GOFLAGS=-mod=mod", "GOPROXY=off", dataset.DataEnv + "="})
	}
}

// readmeBlock is a Go code block of a documentation file, the file's name
// (relative to the repository's root) and the block's first line.
type readmeBlock struct {
	src  string
	file string
	line int
}

// docBlocks returns the Go blocks of docs, failing t when the README has
// none (its library example must stay a tested program) or a block is not
// a complete program (package main). A file of docs/ may have none.
func docBlocks(t *testing.T, docs []docFile) []readmeBlock {
	t.Helper()
	var out []readmeBlock
	for _, d := range docs {
		blocks, lines := goBlocks(string(d.text))
		if len(blocks) == 0 && d.name == "README.md" {
			t.Fatal("README.md has no Go code block")
		}
		for i, src := range blocks {
			if !strings.HasPrefix(strings.TrimSpace(src), "package main") {
				t.Errorf("%s:%d: the Go block is not a complete program (package main)", d.name, lines[i])
				continue
			}
			out = append(out, readmeBlock{src, d.name, lines[i]})
		}
	}
	return out
}

// runBlock writes b as main.go in dir and runs it with go run (the
// openblas tag when this test has it), with env added to the
// environment, failing t when it does not exit 0.
func runBlock(t *testing.T, b readmeBlock, dir string, env []string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the README's programs: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run"}
	if gnn.BLAS == "openblas" {
		args = append(args, "-tags", "openblas") // as this test was built
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, append(args, ".")...)
	cmd.Dir = abs
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("%s:%d: go run in %s: %v\n%s", b.file, b.line, dir, err, out.String())
		return
	}
	t.Logf("%s:%d:\n%s", b.file, b.line, out.String())
}

// docFile is a documentation file: its name relative to the repository's
// root and its text.
type docFile struct {
	name string
	text []byte
}

// readDocs returns the repository's root and the files whose blocks the
// tests run: README.md first, then docs/*.md in the order of their names
// (the text moved out of the README stays tested where it went).
func readDocs(t *testing.T) (root string, docs []docFile) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatalf("no docs/*.md under %s", root)
	}
	for _, name := range append([]string{filepath.Join(root, "README.md")}, names...) {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, name)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, docFile{filepath.ToSlash(rel), text})
	}
	return root, docs
}
