package benchutil

// Pinning (issue 14): a scaling sweep measures parallel efficiency, SEPS(T)
// / (T · SEPS(1)), and that quotient means something only when a run of T
// threads has T cores and no more. Unpinned, a 1-thread run on a 16-core
// machine still spreads its runtime (GC workers, the scheduler's other
// Ps) over idle cores, and the kernel may put two busy threads on the two
// hyperthreads of one core. A Pinner runs each process under taskset(1) on
// T CPUs of the ones this process may use, one CPU of every physical core
// before a second CPU of any, so that "T cores" means T cores where the
// machine has them.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Pinner runs commands on a given number of CPUs under taskset. A nil
// *Pinner runs them unpinned, so that a program holds one whether or not
// its --pin flag is set.
type Pinner struct {
	taskset string // the taskset binary
	cpus    []int  // the CPUs handed out, in order: Command(n) takes the first n
}

// NewPinner returns a Pinner for commands of up to maxCores CPUs. It fails
// with an error that says what is missing when taskset is not installed,
// when this process may run on fewer than maxCores CPUs (a smaller machine,
// or a cpuset or taskset around this process), or when taskset cannot set
// the affinity of a child (a sandbox that forbids it).
func NewPinner(maxCores int) (*Pinner, error) {
	if maxCores < 1 {
		return nil, fmt.Errorf("pin to %d cores: want at least 1", maxCores)
	}
	path, err := exec.LookPath("taskset")
	if err != nil {
		return nil, fmt.Errorf("pin to %d cores: taskset (util-linux) not found on PATH: %w", maxCores, err)
	}
	allowed, err := AllowedCPUs()
	if err != nil {
		return nil, fmt.Errorf("pin to %d cores: %w", maxCores, err)
	}
	p, err := newPinner(path, allowed, threadRank, maxCores)
	if err != nil {
		return nil, err
	}
	// A dry run of the widest pin: taskset sets the affinity, then runs
	// itself to print its version.
	check := exec.Command(path, "-c", p.CPUList(maxCores), path, "-V")
	if out, err := check.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pin to %d cores: %s: %w\n%s", maxCores, strings.Join(check.Args, " "), err, out)
	}
	return p, nil
}

// newPinner orders allowed by rank (a CPU's index among the hyperthreads of
// its core, 0 for the first) and checks that it holds maxCores CPUs.
func newPinner(taskset string, allowed []int, rank func(cpu int) int, maxCores int) (*Pinner, error) {
	if len(allowed) < maxCores {
		return nil, fmt.Errorf("pin to %d cores: this process may run on %d CPUs (%s); run the sweep on a machine with at least %d, "+
			"or leave out the thread counts above %d", maxCores, len(allowed), FormatCPUList(allowed), maxCores, len(allowed))
	}
	cpus := slices.Clone(allowed)
	// Stable: CPUs of the same rank keep their numeric order.
	slices.SortStableFunc(cpus, func(a, b int) int { return rank(a) - rank(b) })
	return &Pinner{taskset: taskset, cpus: cpus}, nil
}

// CPUList returns the CPUs a command pinned to n cores runs on, in the
// list form taskset -c reads ("0-3", "0,2,4,6"). It panics for n outside
// [1, the Pinner's maximum], a programming error.
func (p *Pinner) CPUList(n int) string {
	if n < 1 || n > len(p.cpus) {
		panic(fmt.Sprintf("benchutil: CPUList(%d) of a Pinner of %d CPUs", n, len(p.cpus)))
	}
	return FormatCPUList(p.cpus[:n])
}

// Prefix returns the words put before a command to run it on n cores:
// taskset -c LIST; nil for a nil Pinner.
func (p *Pinner) Prefix(n int) []string {
	if p == nil {
		return nil
	}
	return []string{p.taskset, "-c", p.CPUList(n)}
}

// Command returns the command name args, run on n cores under taskset, or
// unpinned by a nil Pinner.
func (p *Pinner) Command(ctx context.Context, n int, name string, args ...string) *exec.Cmd {
	if p == nil {
		return exec.CommandContext(ctx, name, args...)
	}
	pre := p.Prefix(n)
	return exec.CommandContext(ctx, pre[0], append(append(pre[1:], name), args...)...)
}

// Flag returns " --pin" for a Pinner and "" for a nil one: what a report
// adds to the command line it prints.
func (p *Pinner) Flag() string {
	if p == nil {
		return ""
	}
	return " --pin"
}

// Describe returns a sentence for a report saying how the processes of the
// thread counts threads ran: on which CPUs, or unpinned.
func (p *Pinner) Describe(threads []int) string {
	if p == nil {
		return "Processes were not pinned: a run of T threads could use every CPU of the machine (`--pin` runs it on T CPUs)."
	}
	lists := make([]string, 0, len(threads))
	for _, t := range slices.Compact(slices.Sorted(slices.Values(threads))) {
		lists = append(lists, fmt.Sprintf("T = %d on %s", t, p.CPUList(t)))
	}
	return fmt.Sprintf("Pinned (`--pin`): a process of T threads ran under `taskset -c LIST` on T CPUs, "+
		"one of every physical core before a second of any (%s).", strings.Join(lists, "; "))
}

// AllowedCPUs returns the CPUs this process may run on (its affinity, as
// taskset, a cpuset or mpirun's binding set it), ascending, from
// /proc/self/status.
func AllowedCPUs() ([]int, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, fmt.Errorf("the CPUs this process may use: %w", err)
	}
	cpus, err := allowedCPUs(string(status))
	if err != nil {
		return nil, fmt.Errorf("/proc/self/status: %w", err)
	}
	return cpus, nil
}

// allowedCPUs returns the CPUs of the Cpus_allowed_list line of a
// /proc/PID/status file.
func allowedCPUs(status string) ([]int, error) {
	for line := range strings.Lines(status) {
		if k, v, ok := strings.Cut(line, ":"); ok && k == "Cpus_allowed_list" {
			cpus, err := ParseCPUList(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("line Cpus_allowed_list: %w", err)
			}
			return cpus, nil
		}
	}
	return nil, errors.New("no Cpus_allowed_list line")
}

// ParseCPUList parses the kernel's and taskset's CPU list form, ranges and
// single CPUs separated by commas ("0-3,8,10-11"), into ascending CPUs.
func ParseCPUList(s string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("CPU list %q: bad element %q", s, part)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// FormatCPUList writes cpus in the list form, runs of consecutive CPUs as
// ranges, in the order given ("0-3", "0,2,4,6").
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			fmt.Fprintf(&b, "-%d", cpus[j])
		}
		i = j + 1
	}
	return b.String()
}

// threadRank returns cpu's index among the hyperthreads of its core (0 for
// the first of them, or where sysfs does not say).
func threadRank(cpu int) int {
	b, err := os.ReadFile(filepath.Join("/sys/devices/system/cpu", "cpu"+strconv.Itoa(cpu), "topology/thread_siblings_list"))
	if err != nil {
		return 0
	}
	siblings, err := ParseCPUList(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return max(slices.Index(siblings, cpu), 0)
}
