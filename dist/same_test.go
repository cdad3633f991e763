package dist_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/dist"
)

// TestSameAsRoot: ranks whose description equals rank 0's pass; a rank
// whose lines differ gets an error naming each differing line with both
// values, the others none.
func TestSameAsRoot(t *testing.T) {
	errs := make([]error, 3)
	err := dist.RunInProc(context.Background(), 3, dist.Options{}, func(ctx context.Context, c dist.Comm) error {
		lines := []string{"vertices 10", "entries 40", "classes 3"}
		if c.Rank() == 2 {
			lines = []string{"vertices 10", "entries 41", "classes 4"}
		}
		errs[c.Rank()] = dist.SameAsRoot(ctx, c, "g.bsn", lines)
		if s, err := dist.BcastString(ctx, c, 1, fmt.Sprint("from ", c.Rank())); err != nil || s != "from 1" {
			return fmt.Errorf("BcastString: %q, %v", s, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || errs[1] != nil {
		t.Errorf("ranks with rank 0's lines: %v, %v", errs[0], errs[1])
	}
	want := "g.bsn differs from rank 0's: entries 41 here, entries 40 on rank 0; classes 4 here, classes 3 on rank 0"
	if errs[2] == nil || !strings.Contains(errs[2].Error(), want) {
		t.Errorf("rank 2: %v; want %q", errs[2], want)
	}
}
