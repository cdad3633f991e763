package dist_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist"
)

// TestRunInProc: a rank that fails ends the job (the others, waiting in a
// collective, get ErrAborted) and RunInProc returns its error naming it,
// after it printed it; an Agreed error of every rank aborts nothing and
// comes back as it is; a job without errors returns nil.
func TestRunInProc(t *testing.T) {
	ctx := context.Background()
	var log bytes.Buffer
	boom := errors.New("boom")
	err := dist.Runner{Log: &log}.RunInProc(ctx, 3, dist.Options{}, func(ctx context.Context, c dist.Comm) error {
		if c.Rank() == 1 {
			return boom
		}
		return c.Barrier(ctx, dist.PhaseControl)
	})
	if !errors.Is(err, boom) || err.Error() != "rank 1: boom" {
		t.Errorf("failing rank: err = %v; want rank 1: boom", err)
	}
	if got := log.String(); got != "rank 1: boom\n" {
		t.Errorf("log %q; want the failing rank's line only", got)
	}
	stop := errors.New("stopped after step 3")
	log.Reset()
	err = dist.Runner{Log: &log}.RunInProc(ctx, 3, dist.Options{}, func(ctx context.Context, c dist.Comm) error {
		if err := c.Barrier(ctx, dist.PhaseControl); err != nil {
			return err
		}
		return dist.Agreed(stop)
	})
	if !errors.Is(err, stop) || !errors.Is(err, dist.ErrAgreed) || log.Len() != 0 {
		t.Errorf("agreed stop: err = %v, log %q; want the stop, nothing printed", err, log.String())
	}
	if err := dist.RunInProc(ctx, 2, dist.Options{}, func(ctx context.Context, c dist.Comm) error {
		return c.Barrier(ctx, dist.PhaseControl)
	}); err != nil {
		t.Errorf("no error: %v", err)
	}
	if err := dist.RunInProc(ctx, 0, dist.Options{}, nil); err == nil || !strings.Contains(err.Error(), "0") {
		t.Errorf("0 ranks: %v", err)
	}
	if dist.Agreed(nil) != nil {
		t.Error("Agreed(nil) is not nil")
	}
}
