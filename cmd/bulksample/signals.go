package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/bulksample/bulksample/train"
)

// A command stops cleanly on SIGINT or SIGTERM: the first one cancels the
// command's context, whose cause is a *signalError; the command finishes
// its current step (train saves a checkpoint of where it stopped, convert
// and gen remove their unfinished output) and the process exits with status
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as a shell
// reports a process the signal killed. A second signal ends the process at
// once, with the same status, after one line saying so and what it may
// leave (it ended without a word).
//
// Under MPI (bulksample sample under mpirun or srun) every rank handles its
// own signal the same way, then ends the whole job through MPI_Abort with
// "rank R: stopped by SIGTERM: ..." (stoppedBy in sample_dist.go): a rank
// cannot simply return while the others wait for it in a collective.
// mpirun turns its own SIGINT or SIGTERM into SIGTERM to every rank and
// SIGKILL a second later; the job's status is then mpirun's, not 130/143.
//
// Distributed training stops together instead (stopRequest): while a rank
// trains, its first signal cancels nothing but asks gnn's trainer to stop
// (train.TrainerOptions.Stop); the ranks agree on it in the next step's
// all-reduce, every rank stops after that same step, rank 0 saves the
// checkpoint of it, the others wait until it is written, and every rank
// returns a *rankStopError and exits with 128 + the signal without
// MPI_Abort. A rank that got no signal itself (another rank's stopped it)
// exits 143, as for SIGTERM, which is what mpirun and Slurm send every
// rank.

// signalError is the cause of a context cancelled by a signal.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string {
	switch e.sig {
	case syscall.SIGINT:
		return "stopped by SIGINT"
	case syscall.SIGTERM:
		return "stopped by SIGTERM"
	}
	return "stopped by signal " + e.sig.String()
}

// exitCode is the shell's status for a process ended by the signal.
func (e *signalError) exitCode() int { return 128 + int(e.sig) }

// signalStop is what the first signal does: cancel the command's context
// or, while a distributed trainer has asked for it (stopRequest), close
// that trainer's stop channels instead. It is the value of the context's
// signalStopKey.
type signalStop struct {
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	sig   syscall.Signal              // the first signal; 0 before it
	stops map[*chan struct{}]struct{} // the trainers' open stop channels
}

type signalStopKey struct{}

// receive handles the first signal.
func (s *signalStop) receive(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sig = sig
	if len(s.stops) == 0 {
		s.cancel(&signalError{sig: sig})
		return
	}
	for ch := range s.stops {
		close(*ch)
	}
	clear(s.stops)
}

// notifyContext returns a context that the first SIGINT or SIGTERM cancels
// with a *signalError cause (unless stopRequest turns it into a stop
// request), and a function that releases the handler. A second signal
// ends the process: exit is called with the line to print on stderr and
// the status (os.Exit after printing, outside tests).
func notifyContext(parent context.Context, exit func(msg string, code int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	s := &signalStop{cancel: cancel, stops: make(map[*chan struct{}]struct{})}
	ctx = context.WithValue(ctx, signalStopKey{}, s)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			s.receive(sig.(syscall.Signal))
		case <-done:
			return
		}
		select {
		case sig := <-ch:
			e := &signalError{sig: sig.(syscall.Signal)}
			exit(secondSignalMessage(e), e.exitCode())
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// secondSignalMessage is the line a second signal prints before the
// process ends at once.
func secondSignalMessage(e *signalError) string {
	name := strings.TrimPrefix(e.Error(), "stopped by ")
	return fmt.Sprintf("bulksample: second %s: exiting at once with status %d, without finishing the step; a checkpoint being saved "+
		"keeps the last one written (its temporary is removed on the next start in its folder)", name, e.exitCode())
}

// stopRequest returns a channel that the first signal closes instead of
// cancelling ctx, until release is called (train.TrainerOptions.Stop of a
// distributed trainer, whose ranks must agree on where to stop rather than
// abandon their collectives). The channel is closed already when the
// signal came before; it is never closed when ctx has no signal handler
// (notifyContext).
func stopRequest(ctx context.Context) (stop <-chan struct{}, release func()) {
	ch := make(chan struct{})
	s, ok := ctx.Value(signalStopKey{}).(*signalStop)
	if !ok {
		return ch, func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sig != 0 {
		close(ch)
		return ch, func() {}
	}
	s.stops[&ch] = struct{}{}
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.stops, &ch)
	}
}

// received returns the signal the process received, whether it cancelled
// ctx or closed a stop request, and nil when none did.
func received(ctx context.Context) *signalError {
	var se *signalError
	if errors.As(context.Cause(ctx), &se) {
		return se
	}
	if s, ok := ctx.Value(signalStopKey{}).(*signalStop); ok {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.sig != 0 {
			return &signalError{sig: s.sig}
		}
	}
	return nil
}

// rankStopError is the error of a rank of a distributed training run that
// stopped where every rank agreed to (train.ErrStopRequested): the rank
// returns it and exits with 128 + the signal, without MPI_Abort.
type rankStopError struct {
	rank int
	err  error // wraps a *train.StoppedError
}

func (e *rankStopError) Error() string { return fmt.Sprintf("rank %d: %v", e.rank, e.err) }
func (e *rankStopError) Unwrap() error { return e.err }

// reportedStop is the error of a command whose stop message is printed
// already, with its exit status.
type reportedStop struct {
	code int
	err  error
}

func (e *reportedStop) Error() string { return e.err.Error() }
func (e *reportedStop) Unwrap() error { return e.err }

// reportStop prints the stop message of command name that returned err
// (stopReport) and returns the error that says it is printed, or err
// unchanged when no signal stopped the command. A rank of an agreed stop
// reports before MPI_Finalize, which may never return when the launcher is
// tearing the job down: mpirun after Ctrl-C answers no more, and kills the
// ranks odls_base_sigkill_timeout (1 s) after its SIGTERM.
func reportStop(ctx context.Context, w io.Writer, name string, err error) error {
	code, msg, ok := stopReport(ctx, name, err)
	if !ok {
		return err
	}
	fmt.Fprintln(w, msg)
	return &reportedStop{code: code, err: err}
}

// agreedStop reports whether err is a stop that every rank of a
// distributed run agreed on, which ends the job without MPI_Abort.
func agreedStop(err error) bool { return errors.Is(err, train.ErrStopRequested) }

// stopReport returns the exit status and the message of command name that
// returned err after ctx was cancelled by a signal (or a distributed
// training run stopped where its ranks agreed to), and false when no
// signal stopped it. The message is empty when reportStop printed it.
func stopReport(ctx context.Context, name string, err error) (int, string, bool) {
	if rs, ok := errors.AsType[*reportedStop](err); ok {
		return rs.code, "", true
	}
	rank, by := "", ""
	var rs *rankStopError
	if errors.As(err, &rs) {
		rank, err = fmt.Sprintf("rank %d: ", rs.rank), rs.err
		if rs.rank != 0 {
			by = " by rank 0"
		}
	}
	se := received(ctx)
	var why string // what stopped the command
	switch {
	case se != nil:
		why = se.Error()
	case rs != nil:
		// Another rank's signal stopped this one: its status is
		// SIGTERM's, the signal mpirun and Slurm send every rank.
		se, why = &signalError{sig: syscall.SIGTERM}, "stopped by another rank's signal"
	default:
		return 0, "", false
	}
	var st *train.StoppedError
	if !errors.As(err, &st) {
		return se.exitCode(), fmt.Sprintf("bulksample %s: %s%s: %v", name, rank, why, err), true
	}
	msg := fmt.Sprintf("bulksample %s: %s%s in epoch %d after %d of its %d minibatches", name, rank, why, st.Epoch+1, st.Minibatches, st.Total)
	if st.Checkpoint != "" {
		msg += fmt.Sprintf("; checkpoint saved in %s%s: run the same command with --resume to continue", st.Checkpoint, by)
	} else {
		msg += "; no checkpoint (--checkpoint DIR saves one)"
	}
	if err != error(st) { // saving the checkpoint failed, say why
		msg += fmt.Sprintf(" (%v)", err)
	}
	return se.exitCode(), msg, true
}
