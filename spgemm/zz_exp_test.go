package spgemm

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestZZExp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, m = 1 << 22, 64 << 20
	src, dst := make([]int32, m), make([]int32, m)
	for k := range m {
		src[k], dst[k] = int32(r.IntN(n)), int32(r.IntN(n))
	}
	o := COOOptions{Symmetrize: true, Duplicates: DropDuplicates, DropSelfLoops: true, Threads: 1}
	for _, be := range []int64{1 << 16, 1 << 18, 1 << 20, 1 << 16, 1 << 18, 1 << 20} {
		start := time.Now()
		fromCOO(n, n, src, dst, nil, o, 1<<16, be)
		t.Logf("blockEntries %d: %v", be, time.Since(start))
	}
}
