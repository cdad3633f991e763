package gpu

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGPURunnerWithoutGPU runs the GPU bundle's runner (scripts/gpu-run.sh,
// the bundle's run.sh) as on a machine without a GPU: it must say so and
// exit 1 before running or writing anything; an unknown part is a usage
// error (exit 2).
func TestGPURunnerWithoutGPU(t *testing.T) {
	script, err := filepath.Abs("../scripts/gpu-run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("outside the source tree (a test binary of the GPU bundle): %v", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 1, "no GPU on this machine"},
		{[]string{"node", "ladies"}, 1, "nothing was run"},
		{[]string{"train"}, 1, "nothing was run"},
		{[]string{"nodes"}, 2, "unknown part nodes"},
	} {
		cmd := exec.Command("bash", append([]string{script}, c.args...)...)
		cmd.Env = append(cmd.Environ(), "NVIDIA_SMI=false", "OUT="+out, "WORK="+out)
		b, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || !strings.Contains(string(b), c.want) {
			t.Errorf("run.sh %v without a GPU: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, b)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(out, "*")); len(matches) > 0 {
		t.Errorf("run.sh without a GPU wrote %v", matches)
	}
}
