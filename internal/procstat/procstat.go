package procstat

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size (VmHWM of
// /proc/self/status) in bytes, or -1 where /proc is not available.
func PeakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	return parsePeakRSS(bufio.NewScanner(f))
}

// RSS returns the process's current resident set size (the second field of
// /proc/self/statm, in pages, times the page size) in bytes, or -1 where
// /proc is not available. It costs one small read.
func RSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	return parseStatm(string(b), int64(os.Getpagesize()))
}

// parseStatm returns the resident pages of a statm line ("size resident
// shared text lib data dt") times pageSize, or -1.
func parseStatm(s string, pageSize int64) int64 {
	f := strings.Fields(s)
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || pages < 0 {
		return -1
	}
	return pages * pageSize
}

// TotalMemory returns the machine's physical memory (MemTotal of
// /proc/meminfo) in bytes, or -1 where /proc is not available.
func TotalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return -1
	}
	defer f.Close()
	return parseKBLine(bufio.NewScanner(f), "MemTotal:")
}

// parsePeakRSS returns the VmHWM line's figure in bytes, or -1.
func parsePeakRSS(sc *bufio.Scanner) int64 { return parseKBLine(sc, "VmHWM:") }

// parseKBLine returns the figure in bytes of the first line that starts
// with key and ends in kB (the layout of /proc/self/status and
// /proc/meminfo), or -1.
func parseKBLine(sc *bufio.Scanner, key string) int64 {
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// ResetPeakRSS resets the kernel's record of the peak resident set of this
// process to the current resident set (Linux: writing 5 to
// /proc/self/clear_refs), so that a later PeakRSS covers only what follows.
// Where that is not possible it does nothing.
func ResetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
