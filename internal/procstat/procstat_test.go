package procstat

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

func TestParsePeakRSS(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		want         int64
	}{
		{"present", "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n", 1234 << 10},
		{"absent", "Name:\tx\nVmRSS:\t 1000 kB\n", -1},
		{"garbled", "VmHWM:\t 12x kB\n", -1},
		{"empty", "", -1},
	} {
		if got := parsePeakRSS(bufio.NewScanner(strings.NewReader(tc.status))); got != tc.want {
			t.Errorf("%s: parsePeakRSS = %d; want %d", tc.name, got, tc.want)
		}
	}
}

func TestParseMemTotal(t *testing.T) {
	for _, tc := range []struct {
		name, meminfo string
		want          int64
	}{
		{"present", "MemTotal:       131891416 kB\nMemFree:        1000 kB\n", 131891416 << 10},
		{"not first", "Foo:  1 kB\nMemTotal:  2048 kB\n", 2048 << 10},
		{"absent", "MemFree:        1000 kB\n", -1},
		{"garbled", "MemTotal: lots kB\n", -1},
	} {
		if got := parseKBLine(bufio.NewScanner(strings.NewReader(tc.meminfo)), "MemTotal:"); got != tc.want {
			t.Errorf("%s: MemTotal = %d; want %d", tc.name, got, tc.want)
		}
	}
	if _, err := os.Stat("/proc/meminfo"); err == nil && TotalMemory() < 1<<20 {
		t.Errorf("TotalMemory = %d; want the machine's memory", TotalMemory())
	}
}

func TestPeakRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status on this system")
	}
	before := PeakRSS()
	if before <= 0 {
		t.Fatalf("PeakRSS = %d; want a positive size", before)
	}
	// Touching 64 MiB of fresh memory raises the resident set by about that
	// much, and the peak to at least that set. (The peak itself need not
	// rise: an earlier test may have left it higher.)
	now := RSS()
	buf := freshMemory(t, 64<<20)
	for i := range buf {
		buf[i] = 1
	}
	if after := PeakRSS(); after < now+32<<20 {
		t.Errorf("PeakRSS after touching 64 MiB = %d; resident set before %d", after, now)
	}
	ResetPeakRSS() // must not fail or panic; whether it resets depends on the kernel
	if got := PeakRSS(); got <= 0 {
		t.Errorf("PeakRSS after reset = %d", got)
	}
	_ = buf[len(buf)-1]
}

func TestParseStatm(t *testing.T) {
	for _, tc := range []struct {
		statm string
		want  int64
	}{
		{"52466 3052 1862 355 0 15102 0\n", 3052 * 4096},
		{"1 0 0 0 0 0 0", 0},
		{"52466", -1},
		{"52466 x 1", -1},
		{"", -1},
	} {
		if got := parseStatm(tc.statm, 4096); got != tc.want {
			t.Errorf("parseStatm(%q) = %d; want %d", tc.statm, got, tc.want)
		}
	}
}

// TestRSS checks that the current resident set follows memory that is
// touched and then released.
func TestRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm on this system")
	}
	before := RSS()
	if before <= 0 {
		t.Fatalf("RSS = %d; want a positive size", before)
	}
	buf := freshMemory(t, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	if after := RSS(); after < before+32<<20 {
		t.Errorf("RSS after touching 64 MiB = %d; before %d", after, before)
	}
	_ = buf[len(buf)-1]
}
