package gpu

// The device bundle's runner (scripts/device-run.sh, the bundle's run.sh)
// gets one command on a GPU machine: these tests run it here, without a
// GPU (it must refuse), as a dry run (the plan must fit the budget), and
// on stand-ins of every binary it runs and of nvidia-smi (the bookkeeping:
// rows, summary.md, the rerun with BULKSAMPLE_CUDA_SYNC=1, NOT RUN, the
// exit status, the files it writes and where).

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// runnerScript returns scripts/device-run.sh, or skips outside the source
// tree (a test binary of the bundle).
func runnerScript(t *testing.T, name string) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "scripts", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("outside the source tree (a test binary of the device bundle): %v", err)
	}
	return script
}

// runScript runs bash script args with env added and returns its exit code
// and output.
func runScript(t *testing.T, script string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(b)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(b)
}

// TestRunnerWithoutGPU runs the runner as on a machine without a
// GPU: it must say so and exit 1 before running or writing anything; an
// unknown part is a usage error (exit 2).
func TestRunnerWithoutGPU(t *testing.T) {
	script := runnerScript(t, "device-run.sh")
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 1, "no GPU on this machine"},
		{[]string{"node", "ladies"}, 1, "nothing was run"},
		{[]string{"scale"}, 1, "nothing was run"},
		{[]string{"nodes"}, 2, "unknown part nodes"},
	} {
		code, b := runScript(t, script, []string{"NVIDIA_SMI=false", "OUT=" + out, "WORK=" + out}, c.args...)
		if code != c.code || !strings.Contains(b, c.want) {
			t.Errorf("run.sh %v without a GPU: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, b)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(out, "*")); len(matches) > 0 {
		t.Errorf("run.sh without a GPU wrote %v", matches)
	}
}

// runnerParts are the parts of the runner, in the order of value the
// issue gives.
var runnerParts = []string{"machine", "tests", "node", "digest", "qa", "aa", "ladies", "step", "epoch", "scale"}

// TestRunnerDryRun checks the plan: every part in the order,
// the planned times within the default budget of 540 s, a plan that does
// not fit refused, and the Python found (a virtual environment under the
// home folder when the PATH's python3 has no torch).
func TestRunnerDryRun(t *testing.T) {
	script := runnerScript(t, "device-run.sh")
	home := t.TempDir()
	venv := filepath.Join(home, "venv", "bin", "python3")
	writeExec(t, venv, "#!/bin/sh\ncase \"$*\" in *torch*) exit 0 ;; esac\nexit 1\n")
	code, b := runScript(t, script, []string{"NVIDIA_SMI=false", "HOME=" + home, "PYTHON="}, "--dry-run")
	if code != 0 {
		t.Fatalf("run.sh --dry-run: exit %d\n%s", code, b)
	}
	t.Logf("run.sh --dry-run:\n%s", b)
	m := regexp.MustCompile(`(?m)^\s*(\d+)\. (\w+)\s+(\d+) s`).FindAllStringSubmatch(b, -1)
	total := 0
	for i, p := range runnerParts {
		if i >= len(m) || m[i][2] != p || m[i][1] != strconv.Itoa(i+1) {
			t.Fatalf("part %d is not %s:\n%s", i+1, p, b)
		}
		s, _ := strconv.Atoi(m[i][3])
		total += s
	}
	if len(m) != len(runnerParts) || total > 540 || !strings.Contains(b, "BUDGET=540") || !strings.Contains(b, "planned: "+strconv.Itoa(total)+" s of 540 s") {
		t.Errorf("%d parts planned for %d s; want %d within 540 s:\n%s", len(m), total, len(runnerParts), b)
	}
	if !strings.Contains(b, "python with torch: "+venv) {
		t.Errorf("the dry run did not find the virtual environment's python with torch (%s):\n%s", venv, b)
	}
	if code, b := runScript(t, script, []string{"NVIDIA_SMI=false", "BUDGET=300"}, "--dry-run"); code != 1 || !strings.Contains(b, "does not fit BUDGET=300") {
		t.Errorf("run.sh --dry-run with BUDGET=300: exit %d, want 1 saying the plan does not fit:\n%s", code, b)
	}
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The stand-ins of the bundle's programs: they print what the real ones
// print (the JSON fields the runner reads), and the GPU's LADIES sampler
// fails unless BULKSAMPLE_CUDA_SYNC=1, as an asynchronous fault named only
// when every launch is synchronised would. The GPU samples 3G SEPS, and
// STUB_SEPS_K256 at --bulk 256 (the node part's goal of 5G there).
const (
	stubSMI = `#!/bin/sh
case "$1" in -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-stub)" ;; -q) echo "    Persistence Mode                      : Enabled" ;; *) echo "name, driver_version, persistence_mode"; echo "NVIDIA H200, 580.00, Enabled" ;; esac
`
	stubBulksample = `#!/bin/bash
case "$1" in
--version) echo "bulksample stub" ;;
device) echo "device: NVIDIA H200 (stub)"; echo "loaded libraries: 1"; echo "{\"device\": \"NVIDIA H200 (stub)\", \"open_seconds\": 0.25, \"module_seconds\": 0.01, \"cache\": \"$CUDA_CACHE_PATH\"}" ;;
gen) for a in "$@"; do [ "$prev" = --out ] && touch "$a"; prev=$a; done ;;
convert) touch "$3" ;;
sample)
  case " $* " in *" --method ladies "*" --device cuda "*)
    if [ "$BULKSAMPLE_CUDA_SYNC" != 1 ]; then echo "gpu: cuMemcpyDtoH_v2(8 bytes): CUDA_ERROR_ILLEGAL_ADDRESS (700)" >&2; exit 1; fi ;;
  esac
  case " $* " in *" --device cuda "*" --bulk 256 "* | *" --bulk 256 "*" --device cuda "*) seps=${STUB_SEPS_K256:-3e9} ;; *" --device cuda "*) seps=3e9 ;; *) seps=1e9 ;; esac
  echo "{\"seps\": $seps, \"digest\": \"d1\"}" ;;
spgemm) echo '{"seconds": 0.001, "method": "gather", "nnz_out": 100, "digest": "q1"}' ;;
*) echo "stub: $*" >&2; exit 3 ;;
esac
`
	stubPass      = "#!/bin/sh\necho '--- PASS: TestStub (0.01s)'\necho PASS\n"
	stubTestsFail = `#!/bin/sh
echo '=== RUN   TestDeviceCUDA'
echo '--- FAIL: TestDeviceCUDA (1.00s)'
echo '    device_cuda_test.go:50: sample [--fanout 15,10,5]: GPU digest a, CPU b'
echo FAIL
exit 1
`
	stubGputrain = `#!/bin/bash
for a in "$@"; do [ "$prev" = --export ] && { mkdir -p "$a"; echo '{}' >"$a/manifest.json"; }; [ "$prev" = --mode ] && mode=$a; prev=$a; done
if [ "$mode" = step ]; then
  echo '{"mode": "step", "device": "H200", "backend": "stub", "nodes": 150000, "stored_edges": 7500000, "minibatches": 8, "steps": 20, "edges_per_minibatch": 1, "inputs_per_minibatch": 1, "sample_ms": 1, "gather_ms": 0.1, "forward_ms": 0.5, "backward_ms": 0.8, "update_ms": 0.1, "step_ms": 2}'
else
  echo '{"mode": "epoch", "nodes": 2449029, "stored_edges": 1, "train": 196615, "minibatches": 192, "bulk": 64, "epoch_seconds": [3, 2], "sample_seconds": [1, 0.5]}'
fi
`
	stubPython = `#!/bin/bash
if [ "$1" = -c ]; then case "$2" in *torch* | *cupy*) echo "torch 0.0+stub"; exit 0 ;; esac; exec python3 "$@"; fi
case "$(basename "$1")" in
torch_sampler.py) for k in 1 16 64 256; do echo "{\"peer\": \"torch\", \"k\": $k, \"seps\": 1e9}"; done ;;
cupy_spgemm.py) echo '{"seconds": 0.002}' ;;
pyg_step.py) echo '{"variant": "eager", "step_ms": 3, "gather_ms": 0.1, "forward_ms": 1, "backward_ms": 1.5, "update_ms": 0.4}'; echo '{"variant": "eager", "step_ms": 3, "best": "eager"}' ;;
pyg_epoch.py) echo '{"variant": "eager", "bulk": 64, "epoch_seconds": [9, 8], "sample_seconds": [4, 4]}' ;;
*) exec python3 "$@" ;;
esac
`
	stubScalebench = `#!/bin/bash
for a in "$@"; do [ "$prev" = --out ] && out=$a; prev=$a; done
mkdir -p "$out"
printf '## table: rmat22-e16-none.bsn\n\n| run | SEPS (M) | digest |\n|---|---:|---|\n| 1 process x 16 threads | 100.0 | the reference |\n| np 16 x 1 thread, push | 150.0 | = 1 process |\n' >"$out/scale.md"
echo '[{"case": "1 process x 16 threads"}]' >"$out/scale.json"
`
)

// stubBundle writes a bundle of the runner and the stand-ins into
// dir/bundle, and a home folder whose virtual environment's python3 is the
// stand-in Python, and returns the bundle's folder and the home folder.
func stubBundle(t *testing.T, dir string) (bundle, home string) {
	t.Helper()
	script := runnerScript(t, "device-run.sh")
	scaleRun := runnerScript(t, "scale-run.sh")
	bundle = filepath.Join(dir, "bundle")
	runner, _ := os.ReadFile(script)
	writeExec(t, filepath.Join(bundle, "run.sh"), string(runner))
	sr, _ := os.ReadFile(scaleRun)
	writeExec(t, filepath.Join(bundle, "scale-run.sh"), string(sr))
	os.WriteFile(filepath.Join(bundle, "BUILD"), []byte("stubcommit\n"), 0o644)
	for name, body := range map[string]string{"bulksample": stubBulksample, "cuda.test": stubPass, "gpu.test": stubPass,
		"bulksample.test": stubTestsFail, "gputrain": stubGputrain, "scalebench": stubScalebench, "smi": stubSMI} {
		writeExec(t, filepath.Join(bundle, name), body)
	}
	for _, peer := range []string{"torch_sampler.py", "cupy_spgemm.py", "pyg_step.py", "pyg_epoch.py"} {
		writeExec(t, filepath.Join(bundle, "peers", peer), "# stand-in: the stub python answers\n")
	}
	report, err := os.ReadFile(filepath.Join("..", "benchmarks", "gpupeer", "train_report.py"))
	if err != nil {
		t.Fatal(err)
	}
	writeExec(t, filepath.Join(bundle, "peers", "train_report.py"), string(report))
	home = filepath.Join(dir, "home")
	writeExec(t, filepath.Join(home, "venv", "bin", "python3"), stubPython)
	return bundle, home
}

// summaryRows matches the parts' rows of summary.md: number, part, figure,
// result, first error.
var summaryRows = regexp.MustCompile(`(?m)^\| (\d+) \| (\w+): [^|]* \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$`)

// TestRunnerStubs runs every part on the stand-ins and checks the
// bookkeeping: summary.md at the top of $OUT with each part in order, its
// figure, PASS/FAIL/NOT RUN and first error line; a failed GPU part rerun
// with BULKSAMPLE_CUDA_SYNC=1; a part whose plan does not fit NOT RUN; the
// exit status counting failures and parts not run; every table in
// results.md and every run's JSON in results.jsonl; at most 8 files in
// $OUT and the CUDA cache outside it; the Python with torch found in a
// virtual environment under the home folder. Then the node part alone
// against its goal of 5G SEPS at k = 256 (the GPU at 3x PyTorch throughout,
// so that goal is the only one in question): met at and above 5G, not met
// below.
func TestRunnerStubs(t *testing.T) {
	dir := t.TempDir()
	bundle, home := stubBundle(t, dir)
	venv := filepath.Join(home, "venv", "bin", "python3")
	out, work := filepath.Join(dir, "out"), filepath.Join(dir, "work")
	code, log := runScript(t, filepath.Join(bundle, "run.sh"), []string{"NVIDIA_SMI=" + filepath.Join(bundle, "smi"), "OUT=" + out, "WORK=" + work,
		"HOME=" + home, "PYTHON=", "BULKSAMPLE_CUDA_SYNC=", "BULKSAMPLE_CUDA_LIB=/nonexistent", "PLAN_EPOCH=100000", "SCALE=12", "STUB_SEPS_K256=6e9"})
	defer func() {
		if t.Failed() {
			t.Logf("run.sh:\n%s", log)
		}
	}()
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("summary.md:\n%s", summary)
	// tests (a binary failed), ladies (failed, its rerun passed), epoch (not run).
	if code != 3 {
		t.Errorf("exit %d, want 3: two parts failed and one did not run", code)
	}
	rows := summaryRows.FindAllStringSubmatch(string(summary), -1)
	want := map[string][2]string{
		"machine": {"PASS", "-"},
		"tests":   {"FAIL", "bulksample.test: device_cuda_test.go:50: sample [--fanout 15,10,5]: GPU digest a, CPU b"},
		"node":    {"PASS", "-"}, "digest": {"PASS", "-"}, "qa": {"PASS", "-"}, "aa": {"PASS", "-"},
		"ladies": {"FAIL (the rerun with BULKSAMPLE_CUDA_SYNC=1 passed)", "ladies gpu k=1: exit 1: gpu: cuMemcpyDtoH_v2(8 bytes): CUDA_ERROR_ILLEGAL_ADDRESS (700)"},
		"step":   {"PASS", "-"},
		"epoch":  {"NOT RUN", "planned 100000 s"},
		"scale":  {"PASS", "-"},
	}
	if len(rows) != len(runnerParts) {
		t.Fatalf("%d rows in summary.md, want %d", len(rows), len(runnerParts))
	}
	for i, r := range rows {
		p := runnerParts[i]
		if r[2] != p {
			t.Errorf("row %d is %s, want %s", i+1, r[2], p)
			continue
		}
		if r[4] != want[p][0] || !strings.HasPrefix(r[5], want[p][1]) {
			t.Errorf("%s: %q, first error %q; want %q, %q", p, r[4], r[5], want[p][0], want[p][1])
		}
		if want[p][0] != "NOT RUN" && (r[3] == "-" || r[3] == "") {
			t.Errorf("%s: no figure", p)
		}
	}
	for p, fig := range map[string]string{"node": "GPU 6.00G SEPS at k = 256", "digest": "8 of 8 digests equal", "step": "0.67x", "scale": "2 runs measured, 0 without"} {
		for _, r := range rows {
			if r[2] == p && !strings.Contains(r[3], fig) {
				t.Errorf("%s's figure %q, want %q", p, r[3], fig)
			}
		}
	}
	results, _ := os.ReadFile(filepath.Join(out, "results.md"))
	for _, s := range []string{"## Node-wise bulk sampling SEPS", "| 256 | 6000.0 | 1000.0 | 6.00 | 1000.0 | 6.00 | yes |", "## CPU against GPU digests",
		"## Q·A on the GPU", "## A·A on the GPU", "## LADIES bulk sampling", "### ladies, rerun with BULKSAMPLE_CUDA_SYNC=1",
		"## Training step on the same minibatches", "| bulksample, GPU |", "## table: rmat22-e16-none.bsn"} {
		if !strings.Contains(string(results), s) {
			t.Errorf("results.md has no %q", s)
		}
	}
	jsonl, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if !strings.Contains(string(jsonl), `"part": "node", "run": "gpu k=256", "result": {"seps": 6e9`) ||
		!strings.Contains(string(jsonl), `"cache": "`+filepath.Join(work, "cuda-cache")+`"`) {
		t.Errorf("results.jsonl lacks the node run or the CUDA cache under WORK:\n%s", jsonl)
	}
	machine, _ := os.ReadFile(filepath.Join(out, "machine.txt"))
	for _, s := range []string{"LD_LIBRARY_PATH=", "Persistence Mode", "device: NVIDIA H200 (stub)", "python: " + venv, "BULKSAMPLE_CUDA_LIB=/nonexistent"} {
		if !strings.Contains(string(machine), s) {
			t.Errorf("machine.txt has no %q", s)
		}
	}
	var files []string
	filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if len(files) > 8 {
		t.Errorf("%d files under $OUT, more than the 8 the device tool brings back: %v", len(files), files)
	}

	for _, c := range []struct {
		seps   string // the GPU's SEPS at k = 256
		code   int
		result string
		err    string // the first error's start
	}{
		{"4.99e9", 1, "FAIL (again when rerun with BULKSAMPLE_CUDA_SYNC=1)", "goal not met: k=256: GPU 4.99G SEPS, want >= 5G"},
		{"5e9", 0, "PASS", "-"},
		{"6e9", 0, "PASS", "-"},
	} {
		out := filepath.Join(dir, "node-"+c.seps)
		code, log := runScript(t, filepath.Join(bundle, "run.sh"), []string{"NVIDIA_SMI=" + filepath.Join(bundle, "smi"), "OUT=" + out,
			"WORK=" + filepath.Join(out, "work"), "HOME=" + home, "PYTHON=", "BULKSAMPLE_CUDA_SYNC=", "SCALE=12", "STUB_SEPS_K256=" + c.seps}, "node")
		summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
		rows := summaryRows.FindAllStringSubmatch(string(summary), -1)
		if code != c.code || len(rows) != 1 || rows[0][2] != "node" || rows[0][4] != c.result || !strings.HasPrefix(rows[0][5], c.err) {
			t.Errorf("run.sh node, GPU %s SEPS at k = 256: exit %d, want %d with %q, first error %q:\n%s\nrun.sh:\n%s", c.seps, code, c.code, c.result, c.err, summary, log)
		}
	}
}

// TestRunnerBundle runs the device bundle that make test has just built
// (BULKSAMPLE_DEVICE_BUNDLE, its folder; skipped without it): its plan, and
// its scale part for real on this machine (R-MAT 10, 2 processes), as on a
// GPU machine, with nvidia-smi standing in: the payload unpacks, and the
// scale half of it (scale-run.sh, scalebench, the mpi build on the bundled
// Open MPI, the cuda build of bulksample for the one-process runs) runs
// from there.
func TestRunnerBundle(t *testing.T) {
	bundle := os.Getenv("BULKSAMPLE_DEVICE_BUNDLE")
	if bundle == "" {
		t.Skip("BULKSAMPLE_DEVICE_BUNDLE names no bundle (make test sets it after building bin/device)")
	}
	mpirun(t)
	run := filepath.Join(bundle, "run.sh")
	if code, b := runScript(t, run, nil, "--dry-run"); code != 0 || !strings.Contains(b, "of 540 s") {
		t.Fatalf("%s --dry-run: exit %d\n%s", run, code, b)
	}
	dir := t.TempDir()
	writeExec(t, filepath.Join(dir, "smi"), stubSMI)
	out := filepath.Join(dir, "out")
	code, log := runScript(t, run, []string{"NVIDIA_SMI=" + filepath.Join(dir, "smi"), "OUT=" + out, "WORK=" + filepath.Join(dir, "work"),
		"UNPACK=" + filepath.Join(dir, "unpacked"), "SCALE=10", "CPU_THREADS=2", "SCALE_SEEDS=512", "SCALE_CASES=1 process x 2 threads=0:2:;np 2, push=2:1:--fetch push"}, "scale")
	summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	results, _ := os.ReadFile(filepath.Join(out, "results.md"))
	if code != 0 || !strings.Contains(string(summary), "| 2 runs measured, 0 without the one process's digest | PASS |") ||
		!strings.Contains(string(results), "| np 2, push |") {
		t.Fatalf("run.sh scale: exit %d\nsummary.md:\n%s\nresults.md:\n%s\nrun.sh:\n%s", code, summary, results, log)
	}
}

// mpirun skips without Open MPI's launcher (the bundle's scale half
// brings its own, but is built from this machine's).
func mpirun(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("no mpirun: the device bundle's scale half is built from this machine's Open MPI")
	}
	if os.Geteuid() == 0 {
		t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
		t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	}
}
