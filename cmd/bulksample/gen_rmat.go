package main

// `bulksample gen rmat` writes its graph by row blocks (dataset.GenerateRMATFile):
// from one process, or under mpirun or srun from every rank, each writing
// its block into the one output file, so that a graph no single rank could
// hold can be written. The file is the same for any number of ranks and
// threads.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bulksample/bulksample/dataset"
	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/internal/procstat"
)

// relabelFlags are --relabel and --relabel-seed (gen rmat, convert).
type relabelFlags struct {
	method string
	seed   uint64
}

func (r *relabelFlags) add(fs *flag.FlagSet, prefix string) {
	fs.StringVar(&r.method, "relabel", "", prefix+"relabel the vertices so that contiguous row blocks (the ranks' blocks of a distributed run) balance: "+
		"random (a permutation seeded by --relabel-seed) or degree (vertices dealt by degree; balances every power-of-two block count); "+
		"the file records the permutation (orig_ids) so that ids map back")
	fs.Uint64Var(&r.seed, "relabel-seed", 1, prefix+"seed of --relabel random")
}

// options returns the relabelling the flags ask for (Method "" for none),
// or a usage message naming the bad flag.
func (r *relabelFlags) options(seedSet bool, threads int) (dataset.RelabelOptions, string) {
	switch r.method {
	case "":
		if seedSet {
			return dataset.RelabelOptions{}, "--relabel-seed: only with --relabel random"
		}
		return dataset.RelabelOptions{}, ""
	case dataset.RelabelRandom:
		return dataset.RelabelOptions{Method: r.method, Seed: r.seed, Threads: threads}, ""
	case dataset.RelabelDegree:
		if seedSet {
			return dataset.RelabelOptions{}, "--relabel-seed: only with --relabel random (degree draws nothing)"
		}
		return dataset.RelabelOptions{Method: r.method, Threads: threads}, ""
	}
	return dataset.RelabelOptions{}, fmt.Sprintf("--relabel %q: want random or degree", r.method)
}

// genRMATFile generates R-MAT r relabelled by rl and writes it to out (a
// native file) as name, metering the two phases; under an MPI launcher
// every rank writes its block, and a rank that waits longer than stall in
// one collective ends the job, saying which rank and collective. It
// returns where to report: e, or on the ranks other than 0 an env that
// prints nothing.
func genRMATFile(ctx context.Context, e *env, r dataset.RMATOptions, rl dataset.RelabelOptions, out, name string, stall time.Duration, meter *procstat.Meter, s *genSummary) (*env, error) {
	if dist.LaunchedSize() == 0 {
		return e, writeRMATFile(ctx, e, r, rl, out, name, nil, meter, s)
	}
	world, err := dist.NewMPIWorld(dist.Options{StallTimeout: stall, StallReport: e.stderr})
	if err != nil {
		return e, err // dist.ErrNoMPI: never as p independent writers of one file
	}
	re := e
	if world.Rank() != 0 {
		re = &env{stdout: io.Discard, stderr: io.Discard}
	}
	// An error ends every rank (MPI_Abort).
	err = dist.Runner{Log: e.stderr}.Run(ctx, world, func(ctx context.Context, w dist.Comm) error {
		return stoppedBy(ctx, writeRMATFile(ctx, re, r, rl, out, name, w, meter, s))
	})
	return re, errors.Join(err, world.Close())
}

// writeRMATFile is genRMATFile on world's ranks (nil: this process alone).
func writeRMATFile(ctx context.Context, e *env, r dataset.RMATOptions, rl dataset.RelabelOptions, out, name string, world dist.Comm, meter *procstat.Meter, s *genSummary) error {
	var c dataset.BlockComm
	if world != nil {
		c = blockComm{world}
		s.Ranks = world.Size()
		fmt.Fprintf(e.stderr, "%d ranks, sharing the drawing and each writing its block of rows\n", world.Size())
	}
	f, err := dataset.GenerateRMATFile(ctx, r, rl, c)
	if err != nil {
		return err
	}
	notePhase(e.notes(), "gen", "generate", meter.End("generate"))
	bar := e.status(false, "writing %s", out)
	err = f.Write(ctx, out, name)
	bar.Finish()
	if err != nil {
		return err
	}
	notePhase(e.notes(), "gen", "save", meter.End("save"))
	s.Nodes, s.Edges = f.Nodes(), f.Edges()
	if world != nil {
		s.BlockEdges = f.BlockEdges()
		peak := []int64{procstat.PeakRSS()}
		if err := world.Allreduce(ctx, dist.PhaseControl, dist.OpMax, peak); err != nil {
			return err
		}
		s.PeakRSSMax = peak[0]
	}
	return nil
}

// isNPZ reports whether path gets the .npz format.
func isNPZ(path string) bool { return strings.EqualFold(filepath.Ext(path), ".npz") }

// blockComm is dataset.BlockComm over a dist.Comm: dist's all-gather and
// two-phase exchange (AllgatherWith, ExchangeCounts and ExchangeInto) on
// the control phase.
type blockComm struct{ c dist.Comm }

func (b blockComm) Rank() int { return b.c.Rank() }
func (b blockComm) Size() int { return b.c.Size() }

func (b blockComm) AllgatherInt64(ctx context.Context, v []int64) ([]int64, error) {
	counts := make([]int, b.c.Size())
	for i := range counts {
		counts[i] = len(v) // every rank's length is the same
	}
	return dist.AllgatherWith(ctx, b.c, dist.PhaseControl, v, counts)
}

func (b blockComm) AlltoallvInt64(ctx context.Context, send []int64, counts []int, recv []int64) ([]int64, error) {
	recvCounts, err := dist.ExchangeCounts(ctx, b.c, dist.PhaseControl, counts)
	if err != nil {
		return nil, err
	}
	return dist.ExchangeInto(ctx, b.c, dist.PhaseControl, send, counts, recvCounts, recv)
}

func (b blockComm) AllgathervInt32(ctx context.Context, v []int32, counts []int) ([]int32, error) {
	return dist.AllgatherWith(ctx, b.c, dist.PhaseControl, v, counts)
}
