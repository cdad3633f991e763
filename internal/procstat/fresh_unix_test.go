//go:build unix

package procstat

import (
	"syscall"
	"testing"
)

// freshMemory returns n bytes of memory that no earlier test has touched:
// an anonymous mapping, not the Go heap, whose freed spans a repeated run
// (go test -count) would find already resident.
func freshMemory(t *testing.T, n int) []byte {
	t.Helper()
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap %d bytes: %v", n, err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(b) })
	return b
}
