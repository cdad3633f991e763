package procstat

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
)

// sink keeps heap allocations alive so the compiler cannot drop them.
var sink []byte

func TestMeterHeapAndGC(t *testing.T) {
	const n = 16 << 20
	var m Meter
	m.Begin()
	sink = make([]byte, n)
	alloc := m.End("alloc")
	for i := 0; i < len(sink); i += 512 {
		sink[i] = byte(i >> 9)
	}
	reuse := m.End("reuse")
	runtime.GC()
	gc := m.End("gc")
	sink = nil

	// A large object is counted when it is allocated; the rest of the span
	// allocates next to nothing (the Meter itself nothing).
	if alloc.AllocBytes < n || alloc.AllocBytes > n+1<<20 {
		t.Errorf("allocating %d bytes: AllocBytes = %d", n, alloc.AllocBytes)
	}
	if reuse.AllocBytes > 1<<20 {
		t.Errorf("writing an existing buffer: AllocBytes = %d; want about 0", reuse.AllocBytes)
	}
	if gc.GCCycles < 1 {
		t.Errorf("runtime.GC: GCCycles = %d; want >= 1", gc.GCCycles)
	}
	// A forced cycle stops the world twice and uses CPU to mark.
	if !(gc.GCPauseSeconds > 0) || !(gc.GCCPUSeconds > 0) {
		t.Errorf("runtime.GC: GCPauseSeconds = %g, GCCPUSeconds = %g; want > 0", gc.GCPauseSeconds, gc.GCCPUSeconds)
	}
	// GCCPUSeconds is not compared with GCPauseSeconds: the pause metric
	// counts the wall time of stopping the world, which on a loaded machine
	// (a descheduled thread) may exceed the runtime's CPU estimate.
	if reuse.Seconds <= 0 || reuse.CPUSeconds < 0 || reuse.SysSeconds < 0 || reuse.SysSeconds > reuse.CPUSeconds {
		t.Errorf("times of a 16 MiB write: %+v", reuse)
	}
	total := m.Phases().Total()
	if total.AllocBytes != alloc.AllocBytes+reuse.AllocBytes+gc.AllocBytes {
		t.Errorf("Total().AllocBytes = %d; want the sum of the phases", total.AllocBytes)
	}
}

func TestMeterNowAllocatesNothing(t *testing.T) {
	var m Meter
	m.Begin()
	if a := testing.AllocsPerRun(100, func() { m.End("x") }); a != 0 {
		t.Errorf("Meter.End allocates %v times per call; want 0 (it runs per minibatch)", a)
	}
}

func TestPhasesAddAndJSON(t *testing.T) {
	var p Phases
	p.Add("sample", Cost{Seconds: 1, MinorFaults: 10, PeakRSSBytes: 100})
	p.Add("forward", Cost{Seconds: 2, AllocBytes: 5, PeakRSSBytes: 300})
	p.Add("sample", Cost{Seconds: 0.5, MinorFaults: 1, GCCycles: 2, PeakRSSBytes: 200})
	want := Phases{
		{"sample", Cost{Seconds: 1.5, MinorFaults: 11, GCCycles: 2, PeakRSSBytes: 200}},
		{"forward", Cost{Seconds: 2, AllocBytes: 5, PeakRSSBytes: 300}},
	}
	if len(p) != 2 || p[0] != want[0] || p[1] != want[1] {
		t.Fatalf("Add: %+v; want %+v", p, want)
	}
	if got := p.Get("forward"); got != want[1].Cost {
		t.Errorf("Get(forward) = %+v", got)
	}
	if got := p.Get("none"); got != (Cost{}) {
		t.Errorf("Get(none) = %+v; want zero", got)
	}
	if tot := p.Total(); tot.Seconds != 3.5 || tot.PeakRSSBytes != 300 || tot.MinorFaults != 11 {
		t.Errorf("Total = %+v", tot)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.HasPrefix(s, `{"sample":{"seconds":1.5,`) || !strings.Contains(s, `},"forward":{"seconds":2,`) {
		t.Errorf("JSON = %s; want an object keyed by phase, in order", s)
	}
	var back Phases
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0] != want[0] || back[1] != want[1] {
		t.Errorf("round trip: %+v; want %+v", back, want)
	}
	if b, _ := json.Marshal(Phases(nil)); string(b) != "{}" {
		t.Errorf("empty phases: %s; want {}", b)
	}
	for _, bad := range []string{`[]`, `{"a":1}`, `{"a":{}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s): no error", bad)
		}
	}
}

func TestCostNote(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Cost
		want []string // substrings; nil for ""
	}{
		{"quiet", Cost{Seconds: 1, CPUSeconds: 1, SysSeconds: 0.04, MinorFaults: 100, GCCPUSeconds: 0.04}, nil},
		{"faults", Cost{Seconds: 1, CPUSeconds: 1, SysSeconds: 0.5, MinorFaults: 50000},
			[]string{"page faults 50000 minor", "about 0.500 s in the kernel, 50%"}},
		{"major", Cost{Seconds: 0.01, CPUSeconds: 0.01, SysSeconds: 0.005, MinorFaults: 100, MajorFaults: 3}, []string{"3 major"}},
		{"kernel time without faults", Cost{Seconds: 1, CPUSeconds: 1, SysSeconds: 0.5}, nil},
		// Writing a file: 0.118 s in the kernel, but 270 faults cost at
		// most 270 * 25 µs = 6.75 ms, under 5% of the phase.
		{"I/O, not faults", Cost{Seconds: 0.525, CPUSeconds: 0.129, SysSeconds: 0.118, MinorFaults: 270}, nil},
		// Threads: the share is of the CPU time when it exceeds the wall time.
		{"gc threads", Cost{Seconds: 1, CPUSeconds: 4, GCCPUSeconds: 0.3, GCCycles: 3, GCPauseSeconds: 0.0004},
			[]string{"GC 3 cycles, 8% (pauses 0.4 ms)"}},
		{"both", Cost{Seconds: 1, CPUSeconds: 1, SysSeconds: 0.2, MinorFaults: 20000, GCCPUSeconds: 0.2, GCCycles: 1}, []string{"page faults", "; GC 1 cycle, 20%"}},
		// The runtime's GC estimate above the CPU the phase had (idle mark
		// workers on the other P): at most 100%, and one cycle is a cycle
		// (this read "GC 1 cycles, 182%").
		{"gc estimate above the CPU time", Cost{Seconds: 0.011, CPUSeconds: 0.011, GCCPUSeconds: 0.02, GCCycles: 1, GCPauseSeconds: 0.0001},
			[]string{"GC 1 cycle, 100% (pauses 0.1 ms)"}},
		{"empty", Cost{}, nil},
		// 5 faults in a 2 ms phase: 6% but 0.1 ms, below NoteMinSeconds.
		{"tiny", Cost{Seconds: 0.002, CPUSeconds: 0.002, SysSeconds: 0.001, MinorFaults: 5, GCCPUSeconds: 0.0005}, nil},
	} {
		got := tc.c.Note()
		if tc.want == nil && got != "" {
			t.Errorf("%s: Note = %q; want empty", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: Note = %q; want it to contain %q", tc.name, got, w)
			}
		}
	}
}

func TestCostPer(t *testing.T) {
	c := Cost{Seconds: 4, CPUSeconds: 8, MinorFaults: 400, GCCycles: 3, AllocBytes: 40, PeakRSSBytes: 7}
	want := Cost{Seconds: 1, CPUSeconds: 2, MinorFaults: 100, GCCycles: 0, AllocBytes: 10, PeakRSSBytes: 7}
	if got := c.Per(4); got != want {
		t.Errorf("Per(4) = %+v; want %+v", got, want)
	}
	if got := c.Per(0); got != c {
		t.Errorf("Per(0) = %+v; want c unchanged", got)
	}
}

func TestHistogramSum(t *testing.T) {
	inf := math.Inf(1)
	h := &metrics.Float64Histogram{
		Buckets: []float64{math.Inf(-1), 0, 1, 3, inf},
		Counts:  []uint64{5, 2, 1, 4},
	}
	// (-Inf,0): at 0, 5 times; [0,1): 0.5 twice; [1,3): 2 once; [3,Inf): 3 four times.
	if got, want := histogramSum(h), 0+2*0.5+2+4*3.0; got != want {
		t.Errorf("histogramSum = %g; want %g", got, want)
	}
}

func ExampleMeter() {
	var m Meter
	m.Begin()
	buf := make([]float32, 1<<20) // phase "alloc": 4 MiB of fresh heap
	m.End("alloc")
	for i := range buf {
		buf[i] = 1 // phase "fill": writes the same buffer
	}
	m.End("fill")
	for _, p := range m.Phases() {
		fmt.Printf("%s: allocated at least 4 MiB: %v\n", p.Name, p.AllocBytes >= 4<<20)
	}
	// Output:
	// alloc: allocated at least 4 MiB: true
	// fill: allocated at least 4 MiB: false
}

func BenchmarkMeterEnd(b *testing.B) {
	var m Meter
	m.Begin()
	for b.Loop() {
		m.End("x")
	}
}
