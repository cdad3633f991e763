package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pkg/profile"
)

// profileKind is the value of --profile: "" (none), cpu, mem, allocs, block,
// mutex or trace.
type profileKind string

func (k *profileKind) String() string { return string(*k) }

func (k *profileKind) Set(s string) error {
	switch s {
	case "cpu", "mem", "allocs", "block", "mutex", "trace":
		*k = profileKind(s)
		return nil
	}
	return errors.New("want cpu, mem, allocs, block, mutex or trace")
}

// profileFlags are the --profile and --profile-dir flags every command has.
type profileFlags struct {
	kind profileKind
	dir  string
}

func (p *profileFlags) register(fs *flag.FlagSet) {
	fs.Var(&p.kind, "profile", "write a profile of the run: cpu, mem (heap in use at the end, after a collection; a distributed\n"+
		"sample's at the end of its last bulk, with the sampler and the bulk live), allocs (all allocations),\n"+
		"block, mutex or trace; read it with go tool pprof (go tool trace for trace)")
	fs.StringVar(&p.dir, "profile-dir", ".", "directory of the --profile file, created if missing; the file is cpu.pprof, mem.pprof,\n"+
		"allocs.pprof, block.pprof, mutex.pprof or trace.out (with .rankN before the extension under MPI)")
}

// options returns the github.com/pkg/profile options of the kind, and the
// name of the file that package writes for it. The memory kinds name
// profile.MemProfile first: it sets the sampling rate (one sample per
// 4 KiB allocated), which profile.MemProfileHeap and MemProfileAllocs
// alone leave at 0, so that nothing allocated after the start would be
// recorded.
func (k profileKind) options() ([]func(*profile.Profile), string) {
	switch k {
	case "cpu":
		return []func(*profile.Profile){profile.CPUProfile}, "cpu.pprof"
	case "mem":
		return []func(*profile.Profile){profile.MemProfile, profile.MemProfileHeap}, "mem.pprof"
	case "allocs":
		return []func(*profile.Profile){profile.MemProfile, profile.MemProfileAllocs}, "mem.pprof"
	case "block":
		return []func(*profile.Profile){profile.BlockProfile}, "block.pprof"
	case "mutex":
		return []func(*profile.Profile){profile.MutexProfile}, "mutex.pprof"
	}
	return []func(*profile.Profile){profile.TraceProfile}, "trace.out"
}

// profileFile returns the name of the file of a profile of kind for rank of
// ranks processes: the rank goes into the name when there is more than one,
// so that the ranks of one job can share --profile-dir.
func profileFile(kind profileKind, rank, ranks int) string {
	base, ext := string(kind), ".pprof"
	if kind == "trace" {
		ext = ".out"
	}
	if ranks > 1 {
		return fmt.Sprintf("%s.rank%d%s", base, rank, ext)
	}
	return base + ext
}

// runningProfile is a profile being written.
type runningProfile struct {
	stop interface{ Stop() }
	tmp  string // private directory github.com/pkg/profile writes in
	from string // the file it writes there
	to   string // where the file goes when the profile stops
	kind profileKind
}

// startProfile starts the profile that --profile asks for (nothing when it
// was not given) for process rank of ranks (0 and 1 outside MPI: the
// distributed commands pass their communicator's). run stops it when the
// command returns, whatever it returns. The profile is written in a private
// directory inside --profile-dir and moved to its final name when it stops,
// so that ranks sharing the directory never write the same file.
func (e *env) startProfile(rank, ranks int) error {
	p := &e.profile
	if p.kind == "" {
		return nil
	}
	if e.running != nil {
		return errors.New("internal error: a profile is already running")
	}
	if err := os.MkdirAll(p.dir, 0o777); err != nil {
		return fmt.Errorf("--profile-dir: %w", err)
	}
	tmp, err := os.MkdirTemp(p.dir, ".profile-")
	if err != nil {
		return fmt.Errorf("--profile-dir %s: cannot write there: %w", p.dir, err)
	}
	opts, from := p.kind.options()
	e.running = &runningProfile{
		stop: profile.Start(append(opts, profile.ProfilePath(tmp), profile.Quiet, profile.NoShutdownHook)...),
		tmp:  tmp, from: filepath.Join(tmp, from), to: filepath.Join(p.dir, profileFile(p.kind, rank, ranks)),
		kind: p.kind,
	}
	return nil
}

// stopProfile stops the running profile, if any, moves it to its final name
// and prints that name, with the command that reads it, on stderr. A
// memory profile is written after a collection: the runtime publishes
// its figures at the end of a cycle, so that without one the heap in use
// would be the last cycle's, and the allocations since it would be missing.
func (e *env) stopProfile() error {
	r := e.running
	if r == nil {
		return nil
	}
	e.running = nil
	if r.kind == "mem" || r.kind == "allocs" {
		runtime.GC()
	}
	r.stop.Stop()
	defer os.RemoveAll(r.tmp)
	if err := os.Rename(r.from, r.to); err != nil {
		return fmt.Errorf("--profile %s: %w", r.kind, err)
	}
	tool := "go tool pprof -top " + r.to
	if r.kind == "trace" {
		tool = "go tool trace " + r.to
	}
	fmt.Fprintf(e.stderr, "wrote %s profile %s; read it with: %s\n", r.kind, r.to, tool)
	return nil
}

// stopHeapProfile writes the --profile mem profile now, if that is the
// one running: a distributed sample calls it at the end of its last bulk,
// where the heap holds the sampler, its scratch and the bulk (at the
// command's end they are released).
func (e *env) stopHeapProfile() error {
	if e.running == nil || e.running.kind != "mem" {
		return nil
	}
	return e.stopProfile()
}
