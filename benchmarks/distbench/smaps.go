package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// backing is how the pages of one buffer's mapping are held: its resident
// kilobytes and how many of them are transparent huge pages.
type backing struct{ RssKB, HugeKB int64 }

// backingOf reads /proc/self/smaps for the mapping that holds buf's first
// element (Linux; the zero backing elsewhere or for an empty buffer).
func backingOf[T any](buf []T) backing {
	if cap(buf) == 0 {
		return backing{}
	}
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return backing{}
	}
	defer f.Close()
	var b backing
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uint64
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Contains(rng, "-") && !strings.HasSuffix(rng, ":") {
			if n, _ := fmt.Sscanf(rng, "%x-%x", &lo, &hi); n == 2 {
				if in {
					break
				}
				in = addr >= lo && addr < hi
				continue
			}
		}
		if !in {
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "Rss":
			b.RssKB = kb
		case "AnonHugePages":
			b.HugeKB = kb
		}
	}
	return b
}

// stealSeconds returns the CPU time the hypervisor has taken from this
// virtual machine's CPUs so far, summed over them (the steal column of
// /proc/stat's cpu line, in USER_HZ = 100 ticks per second): time in which
// a thread that looks running to the guest did not run. 0 where it cannot
// be read.
func stealSeconds() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	ticks, err := strconv.ParseInt(f[8], 10, 64)
	if err != nil {
		return 0
	}
	return float64(ticks) / 100
}
