//go:build !linux

package hugemem

// mapRegion returns nil where anonymous huge-page mappings are not
// implemented: Make falls back to the Go heap.
func mapRegion(int) ([]byte, int) { return nil, 0 }

// unmapRegion is never called: mapRegion maps nothing.
func unmapRegion([]byte) error { return nil }

// populateRegion reports that the kernel populated nothing: Populate
// touches the pages itself.
func populateRegion([]byte) bool { return false }
