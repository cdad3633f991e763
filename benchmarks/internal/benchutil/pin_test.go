package benchutil

import (
	"context"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"0", []int{0}},
		{"0-3", []int{0, 1, 2, 3}},
		{"0-1,8-9", []int{0, 1, 8, 9}},
		{"4,0-1,1", []int{0, 1, 4}},
	} {
		got, err := ParseCPUList(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "0-", "0-x", "0,,1", "1-2-3"} {
		if got, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) = %v, want an error", bad, got)
		}
	}
}

func TestFormatCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{[]int{0}, "0"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 2, 4, 6}, "0,2,4,6"},
		{[]int{0, 1, 8, 9, 10}, "0-1,8-10"},
	} {
		if got := FormatCPUList(tc.in); got != tc.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if back, err := ParseCPUList(tc.want); err != nil || !slices.Equal(back, tc.in) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tc.want, back, err, tc.in)
		}
	}
}

func TestAllowedCPUs(t *testing.T) {
	got, err := allowedCPUs("Name:\tx\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0\n")
	if err != nil || !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("allowedCPUs = %v, %v; want [0 1 2 3]", got, err)
	}
	if _, err := allowedCPUs("Name:\tx\n"); err == nil {
		t.Error("allowedCPUs without the line: no error")
	}
	if cpus, err := AllowedCPUs(); err != nil || len(cpus) == 0 {
		t.Errorf("AllowedCPUs() = %v, %v; want this process's CPUs", cpus, err)
	}
	if _, err := allowedCPUs("Cpus_allowed_list:\tzero\n"); err == nil || !strings.Contains(err.Error(), "Cpus_allowed_list") {
		t.Errorf("allowedCPUs of a bad list: error %v, want one naming the line", err)
	}
}

// TestPinnerOrder checks that a Pinner hands out one CPU of every core
// before a second of any: on 4 cores of 2 hyperthreads numbered as Linux
// numbers them on many x86 machines (siblings n and n+4), and as others do
// (siblings 2n and 2n+1).
func TestPinnerOrder(t *testing.T) {
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for _, tc := range []struct {
		name string
		rank func(int) int
		want []string // CPUList(1..8)
	}{
		{"siblings n, n+4", func(c int) int { return c / 4 }, []string{"0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "0-7"}},
		{"siblings 2n, 2n+1", func(c int) int { return c % 2 }, []string{"0", "0,2", "0,2,4", "0,2,4,6", "0,2,4,6,1", "0,2,4,6,1,3", "0,2,4,6,1,3,5", "0,2,4,6,1,3,5,7"}},
		{"no hyperthreads", func(int) int { return 0 }, []string{"0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "0-7"}},
	} {
		p, err := newPinner("taskset", all, tc.rank, 8)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for n := 1; n <= 8; n++ {
			if got := p.CPUList(n); got != tc.want[n-1] {
				t.Errorf("%s: CPUList(%d) = %q, want %q", tc.name, n, got, tc.want[n-1])
			}
		}
	}
}

func TestPinnerTooFewCPUs(t *testing.T) {
	_, err := newPinner("taskset", []int{0, 1}, func(int) int { return 0 }, 16)
	if err == nil || !strings.Contains(err.Error(), "pin to 16 cores") || !strings.Contains(err.Error(), "2 CPUs (0-1)") {
		t.Errorf("newPinner of 16 cores on 2 CPUs: error %v, want one naming 16 cores and the 2 CPUs", err)
	}
	if _, err := NewPinner(0); err == nil {
		t.Error("NewPinner(0): no error")
	}
	n := runtime.NumCPU() + 1
	if _, err := NewPinner(n); err == nil || !strings.Contains(err.Error(), "pin to") {
		t.Errorf("NewPinner(%d) on %d CPUs: error %v, want one naming the cores", n, n-1, err)
	}
}

func TestPinnerCommand(t *testing.T) {
	var unpinned *Pinner
	cmd := unpinned.Command(context.Background(), 4, "bulksample", "sample", "--threads", "4")
	if got := strings.Join(cmd.Args, " "); got != "bulksample sample --threads 4" {
		t.Errorf("a nil Pinner's command %q, want it unchanged", got)
	}
	if unpinned.Prefix(4) != nil {
		t.Errorf("a nil Pinner's prefix %v, want none", unpinned.Prefix(4))
	}
	p, err := newPinner("/usr/bin/taskset", []int{0, 1, 2, 3}, func(int) int { return 0 }, 4)
	if err != nil {
		t.Fatal(err)
	}
	cmd = p.Command(context.Background(), 2, "bulksample", "sample", "--threads", "2")
	if got := strings.Join(cmd.Args, " "); got != "/usr/bin/taskset -c 0-1 bulksample sample --threads 2" {
		t.Errorf("command %q, want taskset -c 0-1 before it", got)
	}
	if d := p.Describe([]int{2, 1, 2}); !strings.Contains(d, "T = 1 on 0; T = 2 on 0-1)") {
		t.Errorf("Describe = %q, want the CPUs of T = 1 and 2 once each", d)
	}
}

// TestPinnerRuns pins a real child to one CPU and reads back, from the
// child's own /proc status, the CPUs it may use.
func TestPinnerRuns(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset is not installed (util-linux)")
	}
	p, err := NewPinner(1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Command(context.Background(), 1, "grep", "Cpus_allowed_list", "/proc/self/status").Output()
	if err != nil {
		t.Fatalf("pinned grep: %v", err)
	}
	_, list, _ := strings.Cut(strings.TrimSpace(string(out)), ":")
	if got, want := strings.TrimSpace(list), p.CPUList(1); got != want {
		t.Errorf("the pinned child may use CPUs %q, want %q", got, want)
	}
}
