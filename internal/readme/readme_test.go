package readme

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/testenv"
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

// TestREADMEGoBlocks builds and runs every Go code block of README.md, as a
// reader who copies it would: each must be a complete program (package
// main) that exits 0, run from a folder of its own inside the repository,
// not from its root (a relative ../shared/data path worked only there).
// Blocks that find a data set with dataset.FindShared need it where
// FindShared looks, as CI has them.
func TestREADMEGoBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the README's programs; skipped in -short")
	}
	_, text := readREADME(t)
	// The data files a block finds with dataset.FindShared.
	sharedFile := regexp.MustCompile(`FindShared\("([A-Za-z0-9_.-]+)"\)`)
	blocks, lines := goBlocks(string(text))
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go code block")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the README's programs: %v", err)
	}
	for i, src := range blocks {
		if !strings.HasPrefix(strings.TrimSpace(src), "package main") {
			t.Errorf("README.md:%d: the Go block is not a complete program (package main)", lines[i])
			continue
		}
		for _, m := range sharedFile.FindAllStringSubmatch(src, -1) {
			if _, err := dataset.FindShared(m[1]); err != nil {
				testenv.MissingData(t, "README.md:%d reads %s: %v", lines[i], m[1], err)
			}
		}
		// The program lives under testdata, inside the module (so that it
		// imports bulksample's packages) but outside ./... patterns.
		dir, err := os.MkdirTemp("testdata", "block")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
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
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("README.md:%d: go run: %v\n%s", lines[i], err, out.String())
			continue
		}
		t.Logf("README.md:%d:\n%s", lines[i], out.String())
	}
}

// readREADME returns the repository's root and its README.md.
func readREADME(t *testing.T) (root string, text []byte) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	text, err = os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, text
}
