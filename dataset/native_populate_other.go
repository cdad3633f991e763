//go:build !linux

package dataset

// populate does nothing where MADV_POPULATE_READ does not exist: the pages
// of a mapping fault in on first use.
func populate([]byte) {}
