package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/bulksample/bulksample/gnn"
)

// A command stops cleanly on SIGINT or SIGTERM: the first one cancels the
// command's context, whose cause is a *signalError; the command finishes
// its current step (train saves a checkpoint of where it stopped, convert
// and gen remove their unfinished output) and the process exits with status
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as a shell
// reports a process the signal killed. A second signal kills the process at
// once (the default action is restored after the first).
//
// Under MPI (bulksample sample under mpirun or srun) every rank handles its
// own signal the same way, then ends the whole job through MPI_Abort with
// "rank R: stopped by SIGTERM: ..." (stoppedBy in sample_dist.go): a rank
// cannot simply return while the others wait for it in a collective.
// mpirun turns its own SIGINT or SIGTERM into SIGTERM to every rank and
// SIGKILL a second later; the job's status is then mpirun's, not 130/143.

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

// notifyContext returns a context that the first SIGINT or SIGTERM cancels
// with a *signalError cause, and a function that releases the handler.
func notifyContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Reset(syscall.SIGINT, syscall.SIGTERM) // a second signal ends the process
			cancel(&signalError{sig: s.(syscall.Signal)})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// stopReport returns the exit status and the message of command name that
// returned err after ctx was cancelled by a signal, and false when no
// signal stopped it.
func stopReport(ctx context.Context, name string, err error) (int, string, bool) {
	var se *signalError
	if !errors.As(context.Cause(ctx), &se) {
		return 0, "", false
	}
	var st *gnn.StoppedError
	if !errors.As(err, &st) {
		return se.exitCode(), fmt.Sprintf("bulksample %s: %v: %v", name, se, err), true
	}
	msg := fmt.Sprintf("bulksample %s: %v in epoch %d after %d of its %d minibatches", name, se, st.Epoch+1, st.Minibatches, st.Total)
	if st.Checkpoint != "" {
		msg += fmt.Sprintf("; checkpoint saved in %s: run the same command with --resume to continue", st.Checkpoint)
	} else {
		msg += "; no checkpoint (--checkpoint DIR saves one)"
	}
	if err != error(st) { // saving the checkpoint failed, say why
		msg += fmt.Sprintf(" (%v)", err)
	}
	return se.exitCode(), msg, true
}
