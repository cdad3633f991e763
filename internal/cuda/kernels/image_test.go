package kernels

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestImageEntries checks the kernels' PTX (kernels.ptx, the PTX of the
// embedded fatbin: scripts/ptx.sh --check keeps both what nvcc makes of the
// source) against the kernel table: every kernel has its entry point, and
// its one parameter, the struct, has the table's size.
func TestImageEntries(t *testing.T) {
	ptx, err := os.ReadFile("kernels.ptx")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\.visible \.entry (bs_\w+)\(\s*\.param \.align 8 \.b8 \w+_param_0\[(\d+)\]\s*\)`)
	entries := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(ptx), -1) {
		entries[m[1]], _ = strconv.Atoi(m[2])
	}
	if n := strings.Count(string(ptx), ".entry "); n != len(entries) {
		t.Errorf("%d entries in kernels.ptx, %d of them of one 8-byte-aligned struct parameter", n, len(entries))
	}
	all := All()
	if len(all) == 0 {
		t.Skip("no kernel table (a build without cgo)")
	}
	for _, k := range all {
		size, ok := entries[k.Entry()]
		switch {
		case !ok:
			t.Errorf("kernel %s: no entry %s in the PTX", k.Name, k.Entry())
		case size != 8*k.Params:
			t.Errorf("kernel %s: a parameter block of %d bytes in the PTX, %d words in the table", k.Name, size, k.Params)
		}
		delete(entries, k.Entry())
	}
	for e := range entries {
		t.Errorf("entry %s of the PTX is no kernel of the table", e)
	}
}

// TestImageTargets checks that Image is a fatbin holding what
// ImageTargets says: SASS for sm_80 and sm_90 and compute_80's PTX (with
// cuobjdump, from the CUDA toolkit that make test installs).
func TestImageTargets(t *testing.T) {
	img := Image()
	if len(img) < 16 || binary.LittleEndian.Uint32(img) != 0xBA55ED50 {
		t.Fatalf("Image (%d bytes) does not start with the fatbin magic 0xBA55ED50", len(img))
	}
	tool, err := exec.LookPath("cuobjdump")
	if err != nil {
		if os.Getenv("BULKSAMPLE_REQUIRE_CUDA_HEADERS") == "1" {
			t.Fatal("cuobjdump not found (scripts/deps.sh cuda installs the toolkit)")
		}
		t.Skip("cuobjdump not found: the fatbin's contents are not listed")
	}
	file := filepath.Join(t.TempDir(), "k.fatbin")
	if err := os.WriteFile(file, img, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, "-lelf", "-lptx", file).CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump: %v\n%s", err, out)
	}
	var sass, ptx []string
	for _, m := range regexp.MustCompile(`(ELF|PTX) file\s+\d+: \S*\.(sm_\d+)\.(cubin|ptx)`).FindAllStringSubmatch(string(out), -1) {
		if m[1] == "ELF" {
			sass = append(sass, m[2])
		} else {
			ptx = append(ptx, strings.Replace(m[2], "sm_", "compute_", 1))
		}
	}
	slices.Sort(sass)
	got := "SASS for " + strings.Join(sass, " and ") + ", PTX for " + strings.Join(ptx, " and ")
	if got != ImageTargets {
		t.Errorf("the fatbin holds %s; ImageTargets says %s\n%s", got, ImageTargets, out)
	}
}
