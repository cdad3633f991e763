package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// hideMPI is the bash prologue of TestScaleBundle's run as root, in a
// mount namespace of its own: Open MPI's folders under tmpfs, its
// launcher and libraries under /dev/null, and a PATH without Go, so that
// the bundle runs on what it carries, as on the machine it is for.
const hideMPI = `set -e
for d in "$(ompi_info --parsable --path pkglibdir | sed -n 's/^path:pkglibdir://p')" \
  "$(ompi_info --parsable --path pkgdatadir | sed -n 's/^path:pkgdatadir://p')" \
  "$(ompi_info --parsable --path sysconfdir | sed -n 's/^path:sysconfdir://p')"; do
  [ -d "$d" ] && mount -t tmpfs none "$d"
done
mpirun=$(readlink -f "$(command -v mpirun)")
for f in $(ldd "$mpirun" | awk '$3 ~ /^\// && $1 !~ /^lib(c|m|z|udev)\.so/ { print $3 }') "$mpirun"; do
  mount --bind /dev/null "$(readlink -f "$f")"
done
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
if command -v go >/dev/null; then echo "go still on PATH"; exit 1; fi
! "$mpirun" --version >/dev/null 2>&1 || { echo "the system mpirun still runs"; exit 1; }
echo "scale-bundle test: the system's Open MPI is hidden"
exec "$@"
`

// TestScaleBundle builds the scaling table's bundle (scripts/scale-bundle.sh:
// static binaries, the mpi build and Open MPI's runtime) and runs its
// run.sh, every part, at scale 10 (one process and mpirun with pull, push
// and replicated, as generated and relabelled, and the papers part at scale
// 11), checking the tables: every run measured, every digest the one
// process's. As root it runs the bundle with the system's Open MPI hidden
// (a mount namespace), as on a machine without it.
func TestScaleBundle(t *testing.T) {
	mpirunTest(t)
	if _, err := exec.LookPath("ompi_info"); err != nil {
		t.Skip("ompi_info not found: the bundle takes Open MPI's files from where it says they are")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bundle := filepath.Join(dir, "bundle")
	build := exec.CommandContext(ctx, "bash", "../../scripts/scale-bundle.sh", bundle)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/scale-bundle.sh: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	runner := []string{filepath.Join(bundle, "run.sh"), "all"}
	hidden := false
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("unshare"); err == nil {
			runner = append([]string{"unshare", "--mount", "--propagation", "private", "bash", "-c", hideMPI, "hide"}, runner...)
			hidden = true
		}
	}
	cmd := exec.CommandContext(ctx, runner[0], runner[1:]...)
	cmd.Env = append(os.Environ(), "OUT="+out, "WORK="+filepath.Join(dir, "work"), "SCALE=10", "SEEDS=512", "PAPERS_SCALE=11",
		"PAPERS_SEEDS=1024", "THREADS=2", "BUDGET=150",
		"CASES=1 process x 2 threads=0:2:;np 2, pull=2:1:--fetch pull;np 2, push=2:1:--fetch push;np 3, replicated=3:1:--replicate-graph;np 4 x 1 thread, auto=4:1:--fetch auto",
		"PAPERS_CASES=1 process x 2 threads=0:2:;np 4, push=4:1:--fetch push")
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run.sh all (system Open MPI hidden: %v): %v\n%s", hidden, err, log)
	}
	if hidden && !strings.Contains(string(log), "the system's Open MPI is hidden") {
		t.Fatalf("the hiding prologue did not run:\n%s", log)
	}
	if !strings.Contains(string(log), "check: mpirun -np 2 of the bundle: the single process's digest") {
		t.Errorf("the check part did not pass:\n%s", log)
	}
	md, err := os.ReadFile(filepath.Join(out, "scale.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "machine.txt")); err != nil {
		t.Error(err)
	}
	text := string(md)
	for _, g := range []string{"table: rmat10-e16-none.bsn", "table: rmat10-e16-degree.bsn", "papers: rmat11-e12-none.bsn", "papers: rmat11-e12-degree.bsn"} {
		if !strings.Contains(text, "## "+g) {
			t.Errorf("scale.md has no table of %s", g)
		}
	}
	rows := regexp.MustCompile(`(?m)^\| ((?:1 process|np \d)[^|]*) \| ([^|]*) \|.*\| ([^|]*) \|$`).FindAllStringSubmatch(text, -1)
	if len(rows) != 2*5+2*2 {
		t.Errorf("%d runs in scale.md; want 14 (5 per table graph, 2 per papers graph)\n%s", len(rows), text)
	}
	for _, r := range rows {
		if strings.HasPrefix(r[2], "failed") || !(r[3] == "the reference" || strings.HasPrefix(r[3], "= 1 process")) {
			t.Errorf("run %q: SEPS %q, digest %q; want measured and the one process's digest", r[1], r[2], r[3])
		}
	}
	if t.Failed() {
		t.Logf("run.sh:\n%s\nscale.md:\n%s", log, text)
	}
}
