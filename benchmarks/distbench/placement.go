package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/bulksample/bulksample/benchmarks/internal/benchutil"
)

// placement is where mpirun puts the ranks (--bind): "none" lets them run
// on any CPU, more ranks than CPUs allowed; "core" gives each a core of its
// own (mpirun --bind-to core); "cpus" pins rank r to CPU cpus[r] with
// taskset, several ranks to a CPU allowed, so that a run with more ranks
// than CPUs can choose which ranks share one.
type placement struct {
	mode string
	cpus []int // rank r's CPU, for mode "cpus"
}

// parsePlacement reads --bind: none, core or cpus:LIST with one CPU per
// rank of np, each one this process may use.
func parsePlacement(s string, np int) (placement, error) {
	switch s {
	case "none", "core":
		if s == "core" && np > runtime.NumCPU() {
			return placement{}, fmt.Errorf("--bind core: --np %d ranks on %d CPUs", np, runtime.NumCPU())
		}
		return placement{mode: s}, nil
	}
	list, ok := strings.CutPrefix(s, "cpus:")
	if !ok {
		return placement{}, fmt.Errorf("--bind %q: want none, core or cpus:LIST (rank r on the r-th CPU of LIST)", s)
	}
	var cpus []int
	for f := range strings.SplitSeq(list, ",") {
		cpu, err := strconv.Atoi(f)
		if err != nil || cpu < 0 {
			return placement{}, fmt.Errorf("--bind %s: %q is not a CPU number", s, f)
		}
		cpus = append(cpus, cpu)
	}
	if len(cpus) != np {
		return placement{}, fmt.Errorf("--bind %s: %d CPUs for --np %d ranks (one per rank)", s, len(cpus), np)
	}
	allowed, err := benchutil.AllowedCPUs()
	if err != nil {
		return placement{}, fmt.Errorf("--bind %s: %w", s, err)
	}
	for _, cpu := range cpus {
		if !slices.Contains(allowed, cpu) {
			return placement{}, fmt.Errorf("--bind %s: CPU %d is not one this process may use (%s)", s, cpu, benchutil.FormatCPUList(allowed))
		}
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return placement{}, fmt.Errorf("--bind %s: taskset (util-linux) not found: %w", s, err)
	}
	return placement{mode: "cpus", cpus: cpus}, nil
}

// launcher names the launch in the report.
func (pl placement) launcher() string {
	switch pl.mode {
	case "core":
		return "`mpirun --bind-to core`"
	case "cpus":
		return fmt.Sprintf("`mpirun --oversubscribe`, rank r pinned by taskset to CPU r of %s (--bind cpus:)", benchutil.JoinInts(pl.cpus))
	}
	return "`mpirun --oversubscribe`"
}

// mpirunCommand returns `mpirun -np N prog args...` with the environment
// that lets it run as root on loopback, placing the ranks by pl. For
// "cpus" it starts N one-rank app contexts (mpirun's `a : b` form), rank
// r's program run under `taskset -c cpus[r]`, so every thread of the rank
// inherits the CPU.
func mpirunCommand(ctx context.Context, mpirun string, np int, pl placement, prog string, args ...string) *exec.Cmd {
	var full []string
	switch pl.mode {
	case "core":
		full = append([]string{"--bind-to", "core", "--map-by", "core", "--report-bindings", "-np", fmt.Sprint(np), prog}, args...)
	case "cpus":
		full = []string{"--oversubscribe", "--bind-to", "none"}
		for r, cpu := range pl.cpus {
			if r > 0 {
				full = append(full, ":")
			}
			full = append(append(full, "-np", "1", "taskset", "-c", strconv.Itoa(cpu), prog), args...)
		}
	default:
		full = append([]string{"--oversubscribe", "--bind-to", "none", "-np", fmt.Sprint(np), prog}, args...)
	}
	cmd := exec.CommandContext(ctx, mpirun, full...)
	cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
		"OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_tcp_if_include=lo", "OMPI_MCA_oob_tcp_if_include=lo", "PMIX_MCA_gds=hash")
	return cmd
}
