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
