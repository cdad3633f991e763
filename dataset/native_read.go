//go:build !unix

package dataset

import (
	"fmt"
	"os"
)

// mapFile reads the whole file where memory mapping is not available.
func mapFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(b) < nativePrefixLen {
		return nil, nil, fmt.Errorf("%s: %w: truncated: %d bytes, shorter than the %d-byte native prefix", path, ErrFormat, len(b), nativePrefixLen)
	}
	return b, func() error { return nil }, nil
}
