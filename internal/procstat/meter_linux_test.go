package procstat

import (
	"os"
	"syscall"
	"testing"
)

// touch writes one byte in every page of mem. It only writes: a read first
// (mem[i]++) would map the shared zero page and then copy it on the write,
// two faults per page.
func touch(mem []byte, page int) {
	for i := 0; i < len(mem); i += page {
		mem[i] = 1
	}
}

// TestMeterCountsFirstTouch checks that the page-fault accounting is real: a
// phase that maps and touches N fresh MiB reports at least one minor fault
// per page (N*256 with 4 KiB pages), and a phase that touches the same pages
// again reports almost none. The memory comes from mmap, not the Go heap,
// whose pages may already be resident; huge pages are refused for it, since
// one fault can map 2 MiB of a huge page.
func TestMeterCountsFirstTouch(t *testing.T) {
	const mib = 32
	page := os.Getpagesize()
	pages := int64(mib << 20 / page)
	var m Meter
	m.Begin()
	mem, err := syscall.Mmap(-1, 0, mib<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skipf("mmap %d MiB: %v", mib, err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Madvise(mem, syscall.MADV_NOHUGEPAGE); err != nil {
		t.Logf("madvise(MADV_NOHUGEPAGE): %v (kernel without transparent huge pages)", err)
	}
	touch(mem, page)
	fresh := m.End("fresh")
	touch(mem, page)
	reused := m.End("reuse")
	t.Logf("fresh: %+v", fresh)
	t.Logf("reuse: %+v", reused)

	// Anonymous memory has no fault-around: every page takes its own fault.
	if fresh.MinorFaults < pages {
		t.Errorf("touching %d fresh MiB: %d minor faults; want >= %d (one per %d-byte page)", mib, fresh.MinorFaults, pages, page)
	}
	// The rest of the process (the runtime, the test framework) faults a few
	// pages at most in a span this short; 1/8 of the expected count would be
	// double counting.
	if fresh.MinorFaults > pages+pages/8 {
		t.Errorf("touching %d fresh MiB: %d minor faults; want about %d", mib, fresh.MinorFaults, pages)
	}
	// Touching resident pages again faults none of them; allow the runtime's
	// incidental faults, far below 1% of the fresh count.
	if reused.Faults() > pages/100 {
		t.Errorf("touching the same %d MiB again: %d faults; want near 0 (< %d)", mib, reused.Faults(), pages/100)
	}
	if fresh.PeakRSSBytes < mib<<20 {
		t.Errorf("peak RSS after touching %d MiB = %d bytes; want at least that", mib, fresh.PeakRSSBytes)
	}
	if fresh.AllocBytes > 1<<20 {
		t.Errorf("mmap'd memory counted as Go heap allocation: %d bytes", fresh.AllocBytes)
	}
	if got := m.Phases(); len(got) != 2 || got[0].Name != "fresh" || got[1].Name != "reuse" {
		t.Errorf("phases = %+v; want fresh, reuse", got)
	}
}
