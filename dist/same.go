package dist

import (
	"context"
	"fmt"
	"strings"
)

// BcastString returns root's s on every rank of c. It is collective.
func BcastString(ctx context.Context, c Comm, root int, s string) (string, error) {
	n := []int64{int64(len(s))}
	if err := c.Bcast(ctx, PhaseControl, root, n); err != nil {
		return "", err
	}
	b := make([]byte, n[0])
	if c.Rank() == root {
		copy(b, s)
	}
	if err := c.Bcast(ctx, PhaseControl, root, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// SameAsRoot is collective on c: it broadcasts rank 0's description of an
// input that every rank must share (lines, one figure each: "vertices
// 2708", "split ...") and returns, on every rank whose own lines differ, an
// error naming what and each line that differs, with both values. The
// other ranks return nil and go on to their next collective, where the
// failing rank's abort ends them (Run). A rank that read another file under
// the same name (a stale copy on one node's disk) otherwise computed on
// other data, and the job ended with exit status 0.
func SameAsRoot(ctx context.Context, c Comm, what string, lines []string) error {
	here := strings.Join(lines, "\n")
	root, err := BcastString(ctx, c, 0, here)
	if err != nil {
		return fmt.Errorf("compare %s with rank 0's: %w", what, err)
	}
	if root == here {
		return nil
	}
	var diffs []string
	theirs := strings.Split(root, "\n")
	for i, l := range lines {
		if i >= len(theirs) || theirs[i] != l {
			r := ""
			if i < len(theirs) {
				r = theirs[i]
			}
			diffs = append(diffs, fmt.Sprintf("%s here, %s on rank 0", l, r))
		}
	}
	return fmt.Errorf("%s differs from rank 0's: %s (every rank must read the same file)", what, strings.Join(diffs, "; "))
}
