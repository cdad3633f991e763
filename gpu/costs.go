package gpu

// What a Device's work costs, counted by its executor as the work runs.

import (
	"maps"
	"sync"

	"github.com/bulksample/bulksample/internal/cuda/kernels"
)

// Costs counts what the work of a Device cost since it was opened or its
// costs were last reset (Device.Costs, Device.ResetCosts): kernel
// launches, copies between host and device memory, allocations, and, on
// the emulator, the global memory the kernels read and wrote.
//
// A download (device to host) waits for the work queued before it on its
// stream, so a pipeline that reads a size back stalls there: Downloads is
// the count of such blocking copies. Uploads copy from pageable host
// memory, which the driver stages before returning.
//
// Syncs are waits for all the device's work, StreamSyncs for one
// stream's; EventRecords and EventWaits order two streams (a trainer's and
// the sampler's of its next bulk) without either.
//
// Read and Written are what the kernels' accesses declare on the host
// emulator (package kernels counts every global load and store of a
// Counted kernel, in element sizes; an atomic is a read and a write); on a
// GPU they stay 0. The GNN backend's kernels are not counted
// (UncountedLaunches).
type Costs struct {
	Launches          int64
	UncountedLaunches int64 // launches of kernels whose traffic is not counted
	Downloads         int64
	DownloadBytes     int64
	Uploads           int64
	UploadBytes       int64
	Allocs            int64
	AllocBytes        int64
	Frees             int64
	// HostAllocs and HostAllocBytes count page-locked host memory mapped
	// for the device (features read in place: PlaceHost), which takes no
	// device memory.
	HostAllocs     int64
	HostAllocBytes int64
	Syncs          int64
	StreamSyncs    int64
	EventRecords   int64
	EventWaits     int64
	Read, Written  int64
	// Kernels holds the figures of each kernel, by name.
	Kernels map[string]KernelCosts
}

// KernelCosts are one kernel's launches, their threads (for a block
// kernel, its blocks of work times its block size) and traffic, and the
// most bytes one thread moved between two barriers in any launch
// (kernels.Traffic.MaxThread; 0 on a GPU).
type KernelCosts struct {
	Launches, Threads, Read, Written, MaxThread int64
}

// Traffic returns the bytes of global memory read and written.
func (c Costs) Traffic() int64 { return c.Read + c.Written }

// Sub returns c - o, figure by figure: the costs of the work between two
// readings (a kernel's MaxThread is the later reading's: ResetCosts
// before a call to read that call's).
func (c Costs) Sub(o Costs) Costs {
	d := Costs{
		Launches: c.Launches - o.Launches, UncountedLaunches: c.UncountedLaunches - o.UncountedLaunches,
		Downloads: c.Downloads - o.Downloads, DownloadBytes: c.DownloadBytes - o.DownloadBytes,
		Uploads: c.Uploads - o.Uploads, UploadBytes: c.UploadBytes - o.UploadBytes,
		Allocs: c.Allocs - o.Allocs, AllocBytes: c.AllocBytes - o.AllocBytes, Frees: c.Frees - o.Frees,
		HostAllocs: c.HostAllocs - o.HostAllocs, HostAllocBytes: c.HostAllocBytes - o.HostAllocBytes,
		Syncs: c.Syncs - o.Syncs, StreamSyncs: c.StreamSyncs - o.StreamSyncs,
		EventRecords: c.EventRecords - o.EventRecords, EventWaits: c.EventWaits - o.EventWaits,
		Read: c.Read - o.Read, Written: c.Written - o.Written,
		Kernels: map[string]KernelCosts{},
	}
	for name, k := range c.Kernels {
		ok := o.Kernels[name]
		// MaxThread is a maximum, not a sum: the later reading's.
		if dk := (KernelCosts{k.Launches - ok.Launches, k.Threads - ok.Threads, k.Read - ok.Read, k.Written - ok.Written, k.MaxThread}); dk.Launches != 0 {
			d.Kernels[name] = dk
		}
	}
	return d
}

// costCounter is a Device's Costs, safe for concurrent use (an executor
// adds to it while another goroutine reads it).
type costCounter struct {
	mu sync.Mutex
	c  Costs
}

func (cc *costCounter) add(fn func(c *Costs)) {
	cc.mu.Lock()
	fn(&cc.c)
	cc.mu.Unlock()
}

// launch counts a launch of k on threads threads, when it is issued.
func (cc *costCounter) launch(k kernels.Kernel, threads int64) {
	cc.add(func(c *Costs) {
		c.Launches++
		if !k.Counted {
			c.UncountedLaunches++
		}
		if c.Kernels == nil {
			c.Kernels = map[string]KernelCosts{}
		}
		kc := c.Kernels[k.Name]
		kc.Launches++
		kc.Threads += threads
		c.Kernels[k.Name] = kc
	})
}

// traffic counts the global memory a launch of k read and wrote, when it
// has run (the emulator's).
func (cc *costCounter) traffic(k kernels.Kernel, tr kernels.Traffic) {
	cc.add(func(c *Costs) {
		c.Read += tr.Read
		c.Written += tr.Write
		if c.Kernels == nil {
			c.Kernels = map[string]KernelCosts{}
		}
		kc := c.Kernels[k.Name]
		kc.Read += tr.Read
		kc.Written += tr.Write
		kc.MaxThread = max(kc.MaxThread, tr.MaxThread)
		c.Kernels[k.Name] = kc
	})
}

func (cc *costCounter) alloc(bytes int64) {
	cc.add(func(c *Costs) { c.Allocs++; c.AllocBytes += bytes })
}

func (cc *costCounter) free() { cc.add(func(c *Costs) { c.Frees++ }) }

func (cc *costCounter) allocMapped(bytes int64) {
	cc.add(func(c *Costs) { c.HostAllocs++; c.HostAllocBytes += bytes })
}

func (cc *costCounter) upload(bytes int64) {
	cc.add(func(c *Costs) { c.Uploads++; c.UploadBytes += bytes })
}

func (cc *costCounter) download(bytes int64) {
	cc.add(func(c *Costs) { c.Downloads++; c.DownloadBytes += bytes })
}

func (cc *costCounter) sync() { cc.add(func(c *Costs) { c.Syncs++ }) }

func (cc *costCounter) syncStream() { cc.add(func(c *Costs) { c.StreamSyncs++ }) }

func (cc *costCounter) record() { cc.add(func(c *Costs) { c.EventRecords++ }) }

func (cc *costCounter) wait() { cc.add(func(c *Costs) { c.EventWaits++ }) }

func (cc *costCounter) snapshot() Costs {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	c := cc.c
	c.Kernels = maps.Clone(cc.c.Kernels)
	if c.Kernels == nil {
		c.Kernels = map[string]KernelCosts{}
	}
	return c
}

// Costs returns what the device's work has cost since it was opened or
// since ResetCosts. On the emulator it first runs the work its streams
// have queued, so that the traffic of every launch counted is counted.
func (d *Device) Costs() Costs {
	if d.settle != nil {
		d.settle()
	}
	return d.costs.snapshot()
}

// ResetCosts sets the device's costs to zero (on the emulator, after
// running the work its streams have queued, whose traffic belongs to the
// reading before).
func (d *Device) ResetCosts() {
	if d.settle != nil {
		d.settle()
	}
	d.costs.add(func(c *Costs) { *c = Costs{} })
}
