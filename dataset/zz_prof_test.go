package dataset

import (
	"os"
	"testing"
	"time"
)

func TestZZProfNative(t *testing.T) {
	p := os.Getenv("NATIVEPROF")
	if p == "" {
		t.Skip()
	}
	for _, level := range []VerifyLevel{VerifyStructure, VerifyChecksums, VerifyStructure, VerifyChecksums} {
		var best time.Duration
		for range 5 {
			s := time.Now()
			d, err := Load(p, &LoadOptions{Verify: level})
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(s)
			d.Close()
			if best == 0 || el < best {
				best = el
			}
		}
		t.Logf("%v: best %v", level, best)
	}
}
