//go:build !unix

package procstat

import "testing"

// freshMemory returns n bytes from the Go heap where there is no mmap.
func freshMemory(t *testing.T, n int) []byte { return make([]byte, n) }
