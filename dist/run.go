package dist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/bulksample/bulksample/internal/par"
)

// ErrAgreed is wrapped by the errors that Agreed marks.
var ErrAgreed = errors.New("dist: an error every rank returns")

// Agreed marks err as one that every rank of the job returns alike, after
// the same collective calls (a stop the ranks agreed on in a collective, or
// a parameter checked against inputs every rank has shown to share): Run
// returns it without aborting the job, since no rank waits for another.
// The returned error wraps both err and ErrAgreed; Agreed(nil) is nil.
func Agreed(err error) error {
	if err == nil {
		return nil
	}
	return &agreedError{err}
}

type agreedError struct{ err error }

func (e *agreedError) Error() string   { return e.err.Error() }
func (e *agreedError) Unwrap() []error { return []error{e.err, ErrAgreed} }

// Runner runs the work of a rank (Run) or of every in-process rank
// (RunInProc) and ends the job when a rank fails. The zero value reports
// to standard error.
type Runner struct {
	// Log is where a failing rank reports "rank R: <error>" before the
	// abort (under MPI the launcher then ends the process, so this line
	// is the only trace of the cause); nil means os.Stderr.
	Log io.Writer
}

// Run is Runner{}.Run.
func Run(ctx context.Context, world Comm, work func(context.Context, Comm) error) error {
	return Runner{}.Run(ctx, world, work)
}

// Run runs work as this rank's part of the job of world and returns its
// error. When work fails with an error that is not Agreed, Run reports it
// on r.Log as "rank R: <error>" and aborts the job through world (Fail), so
// that no rank waits for this one in a collective: under MPI, MPI_Abort
// ends every rank and Run does not return; in-process, every pending and
// later call of every rank fails with ErrAborted, and Run returns the
// error. An error that is itself the abort of another rank (ErrAborted) is
// returned as it is, without a second abort. Run does not close world.
//
// A library user's rank program is
//
//	err := dist.Run(ctx, world, func(ctx context.Context, c dist.Comm) error {
//		g, err := dist.NewGrid(ctx, c, replication, n)
//		...
//	})
func (r Runner) Run(ctx context.Context, world Comm, work func(context.Context, Comm) error) error {
	err := work(ctx, world)
	if err == nil || errors.Is(err, ErrAgreed) || errors.Is(err, ErrAborted) {
		return err
	}
	Fail(r.log(), world, err)
	return err
}

func (r Runner) log() io.Writer {
	if r.Log == nil {
		return os.Stderr
	}
	return r.Log
}

// RunInProc is Runner{}.RunInProc.
func RunInProc(ctx context.Context, p int, opt Options, work func(context.Context, Comm) error) error {
	return Runner{}.RunInProc(ctx, p, opt, work)
}

// RunInProc runs work on the p ranks of a new in-process job (goroutines
// of this process, NewInProcWorld), each through Run, and waits for all of
// them. It returns the error of the first rank (in rank order) that failed
// by itself, as "rank R: <error>" wrapping it; else the first Agreed error;
// else nil. The ranks' communicators live as long as the call.
func (r Runner) RunInProc(ctx context.Context, p int, opt Options, work func(context.Context, Comm) error) error {
	world, err := NewInProcWorld(p, opt)
	if err != nil {
		return err
	}
	log := NewSyncWriter(r.log()) // the ranks share it
	errs := make([]error, p)
	// Every rank at once (par.Do): a rank waits for the others in its
	// collectives.
	par.Do(p, func(rank int) { errs[rank] = Runner{Log: log}.Run(ctx, world[rank], work) })
	for rank, err := range errs {
		if err != nil && !errors.Is(err, ErrAborted) && !errors.Is(err, ErrAgreed) {
			return fmt.Errorf("rank %d: %w", rank, err)
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// NewSyncWriter returns w with its writes serialised: the stream that the
// ranks of one process (RunInProc) share, for their failures and their own
// output. Wrapping a writer that is one already costs a second lock, no
// interleaving.
func NewSyncWriter(w io.Writer) io.Writer { return &syncWriter{w: w} }

// syncWriter serialises the writes of in-process ranks to one stream.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
