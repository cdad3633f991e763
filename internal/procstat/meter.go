package procstat

import (
	"math"
	"runtime/metrics"
	"syscall"
	"time"
)

// Snapshot holds the process's cumulative counters at one instant. The
// difference of two snapshots (Sub) is the Cost of what ran between them.
type Snapshot struct {
	Wall        time.Time     // with its monotonic reading
	UserCPU     time.Duration // user CPU time of all threads so far
	SysCPU      time.Duration // system (kernel) CPU time of all threads so far
	MinorFaults int64         // page faults served without I/O
	MajorFaults int64         // page faults that read from disk
	PeakRSS     int64         // ru_maxrss in bytes: the resident set's high-water mark
	// AllocBytes is the bytes allocated on the Go heap so far
	// (/gc/heap/allocs:bytes). Objects over 32 KiB count when allocated;
	// small ones when a thread's cache takes a fresh span of them, so a span
	// that allocates less than a few tens of KiB may show 0 or a span's worth.
	AllocBytes uint64
	GCCycles   uint64 // completed GC cycles (/gc/cycles/total:gc-cycles)
	// GCPause is the total stop-the-world GC pause time in seconds, summed
	// from the runtime's pause histogram at bucket midpoints (within the
	// histogram's resolution, about 1/8 of each pause).
	GCPause float64
	// GCCPU is the runtime's estimate of the CPU seconds spent on GC
	// (/cpu/classes/gc/total:cpu-seconds: mark workers, assists and pauses).
	// The runtime updates it when a GC cycle ends, so a cycle's whole CPU
	// time is credited to the phase in which it ends.
	GCCPU float64
}

// Cost is what a span of work cost the process: the difference of two
// Snapshots. Its JSON form is what the CLI's summaries and the benchmark
// programs report per phase.
type Cost struct {
	Seconds     float64 `json:"seconds"`     // wall time
	CPUSeconds  float64 `json:"cpu_seconds"` // user + system time of all threads
	SysSeconds  float64 `json:"sys_seconds"` // the system part: time in the kernel, page faults included
	MinorFaults int64   `json:"minor_faults"`
	MajorFaults int64   `json:"major_faults"`
	AllocBytes  int64   `json:"alloc_bytes"` // bytes allocated on the Go heap
	GCCycles    int64   `json:"gc_cycles"`   // GC cycles that completed
	// GCPauseSeconds is the stop-the-world GC pause time.
	GCPauseSeconds float64 `json:"gc_pause_seconds"`
	// GCCPUSeconds is the runtime's estimate of the CPU time spent on GC,
	// pauses included (see Snapshot.GCCPU for how it is credited).
	GCCPUSeconds float64 `json:"gc_cpu_seconds"`
	// PeakRSSBytes is the process's peak resident set at the end of the
	// span (since the process started or ResetPeakRSS was last called), not
	// a difference; -1 where unknown.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
}

// Sub returns the cost of the span from earlier to s.
func (s Snapshot) Sub(earlier Snapshot) Cost {
	return Cost{
		Seconds:        s.Wall.Sub(earlier.Wall).Seconds(),
		CPUSeconds:     (s.UserCPU + s.SysCPU - earlier.UserCPU - earlier.SysCPU).Seconds(),
		SysSeconds:     (s.SysCPU - earlier.SysCPU).Seconds(),
		MinorFaults:    s.MinorFaults - earlier.MinorFaults,
		MajorFaults:    s.MajorFaults - earlier.MajorFaults,
		AllocBytes:     int64(s.AllocBytes - earlier.AllocBytes),
		GCCycles:       int64(s.GCCycles - earlier.GCCycles),
		GCPauseSeconds: max(0, s.GCPause-earlier.GCPause),
		GCCPUSeconds:   max(0, s.GCCPU-earlier.GCCPU),
		PeakRSSBytes:   s.PeakRSS,
	}
}

// Add adds o's figures to c's; the peak resident set becomes the larger of
// the two.
func (c *Cost) Add(o Cost) {
	c.Seconds += o.Seconds
	c.CPUSeconds += o.CPUSeconds
	c.SysSeconds += o.SysSeconds
	c.MinorFaults += o.MinorFaults
	c.MajorFaults += o.MajorFaults
	c.AllocBytes += o.AllocBytes
	c.GCCycles += o.GCCycles
	c.GCPauseSeconds += o.GCPauseSeconds
	c.GCCPUSeconds += o.GCCPUSeconds
	c.PeakRSSBytes = max(c.PeakRSSBytes, o.PeakRSSBytes)
}

// Per returns the average cost of one of n equal parts of the span: every
// figure divided by n except the peak resident set. It returns c for n < 1.
func (c Cost) Per(n int) Cost {
	if n < 1 {
		return c
	}
	f := float64(n)
	return Cost{
		Seconds: c.Seconds / f, CPUSeconds: c.CPUSeconds / f, SysSeconds: c.SysSeconds / f,
		MinorFaults: c.MinorFaults / int64(n), MajorFaults: c.MajorFaults / int64(n),
		AllocBytes: c.AllocBytes / int64(n), GCCycles: c.GCCycles / int64(n),
		GCPauseSeconds: c.GCPauseSeconds / f, GCCPUSeconds: c.GCCPUSeconds / f,
		PeakRSSBytes: c.PeakRSSBytes,
	}
}

// Faults returns the minor and major page faults together.
func (c Cost) Faults() int64 { return c.MinorFaults + c.MajorFaults }

// share returns x as a fraction of the span's time: its wall time, or its
// CPU time when threads made that larger.
func (c Cost) share(x float64) float64 {
	d := max(c.Seconds, c.CPUSeconds)
	if d <= 0 {
		return 0
	}
	return x / d
}

// MaxFaultCost is the most kernel time FaultSeconds credits to one page
// fault: a little above the dearest first touch measured on the project's
// virtual machines (11-22 µs per 4 KiB page, shared/design/PERF-NOTES.md).
const MaxFaultCost = 25 * time.Microsecond

// FaultSeconds estimates the time the span's page faults cost: its kernel
// time, which a span that touches much fresh memory spends mostly on faults,
// but at most MaxFaultCost per fault, so that the kernel time of I/O system
// calls is not blamed on a few faults. (On a virtual machine the host's part
// of a first touch is not in the guest's kernel time at all; the estimate
// is then low.)
func (c Cost) FaultSeconds() float64 {
	return min(c.SysSeconds, float64(c.Faults())*MaxFaultCost.Seconds())
}

// FaultShare returns FaultSeconds as a fraction of the span's time (see
// GCShare).
func (c Cost) FaultShare() float64 { return c.share(c.FaultSeconds()) }

// GCShare returns the GC CPU time of the span as a fraction of its time:
// its wall time, or its CPU time when threads made that larger. The GC's
// CPU time is the runtime's estimate, which counts every P during a pause
// and the idle Ps its idle mark workers ran on, and so can exceed the CPU
// time the process was given (a short phase read "GC 1 cycles, 182%"): it
// is taken as at most the span's CPU time, so the share is at most 1.
func (c Cost) GCShare() float64 {
	gc := c.GCCPUSeconds
	if c.CPUSeconds > 0 {
		gc = min(gc, c.CPUSeconds)
	}
	return min(c.share(gc), 1)
}

// Meter measures the named phases of a run. Begin starts a span; End adds the
// cost since the last Begin or End to a phase and starts the next span, so
// that consecutive End calls measure consecutive phases with one reading per
// boundary. The zero value is ready to use. A Meter is not safe for
// concurrent use; it measures the whole process, so work running beside the
// measured goroutine is counted too.
type Meter struct {
	samples []metrics.Sample
	mark    Snapshot
	phases  Phases
}

// The runtime/metrics read by a Meter, in the order of Meter.samples.
const (
	metricAllocBytes = iota
	metricGCCycles
	metricGCPauses
	metricGCCPU
	numMetrics
)

var metricNames = [numMetrics]string{
	metricAllocBytes: "/gc/heap/allocs:bytes",
	metricGCCycles:   "/gc/cycles/total:gc-cycles",
	metricGCPauses:   "/sched/pauses/total/gc:seconds",
	metricGCCPU:      "/cpu/classes/gc/total:cpu-seconds",
}

// Now returns the process's counters now.
func (m *Meter) Now() Snapshot {
	if m.samples == nil {
		m.samples = make([]metrics.Sample, numMetrics)
		for i, name := range metricNames {
			m.samples[i].Name = name
		}
	}
	s := Snapshot{Wall: time.Now(), PeakRSS: -1}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		s.UserCPU = time.Duration(ru.Utime.Nano())
		s.SysCPU = time.Duration(ru.Stime.Nano())
		s.MinorFaults, s.MajorFaults = int64(ru.Minflt), int64(ru.Majflt)
		s.PeakRSS = int64(ru.Maxrss) << 10 // Linux reports KiB
	}
	// Read reuses the histogram's slices from the second call on.
	metrics.Read(m.samples)
	s.AllocBytes = uint64Value(m.samples[metricAllocBytes].Value)
	s.GCCycles = uint64Value(m.samples[metricGCCycles].Value)
	if v := m.samples[metricGCPauses].Value; v.Kind() == metrics.KindFloat64Histogram {
		s.GCPause = histogramSum(v.Float64Histogram())
	}
	if v := m.samples[metricGCCPU].Value; v.Kind() == metrics.KindFloat64 {
		s.GCCPU = v.Float64()
	}
	return s
}

func uint64Value(v metrics.Value) uint64 {
	if v.Kind() != metrics.KindUint64 {
		return 0 // a metric this Go release lacks
	}
	return v.Uint64()
}

// histogramSum estimates the sum of the values in h, each at its bucket's
// midpoint (at its finite edge for a bucket open to infinity).
func histogramSum(h *metrics.Float64Histogram) float64 {
	var sum float64
	for i, n := range h.Counts {
		if n == 0 {
			continue
		}
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		v := (lo + hi) / 2
		switch {
		case math.IsInf(lo, -1):
			v = hi
		case math.IsInf(hi, 1):
			v = lo
		}
		sum += float64(n) * max(v, 0)
	}
	return sum
}

// Begin starts a span: the next End measures from now.
func (m *Meter) Begin() { m.mark = m.Now() }

// End adds the cost of the span since the last Begin or End to the phase
// called name, starts the next span, and returns the span's cost.
func (m *Meter) End(name string) Cost {
	now := m.Now()
	c := now.Sub(m.mark)
	m.mark = now
	m.phases.Add(name, c)
	return c
}

// Phases returns a copy of the phases measured so far, in the order of their
// first End.
func (m *Meter) Phases() Phases { return append(Phases(nil), m.phases...) }

// Phase returns the cost accumulated in the phase called name (zero if it
// has none).
func (m *Meter) Phase(name string) Cost { return m.phases.Get(name) }

// Reset forgets the phases measured so far (for instance at the start of an
// epoch); the current span goes on.
func (m *Meter) Reset() { m.phases = m.phases[:0] }
