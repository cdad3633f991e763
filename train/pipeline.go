package train

// The input pipeline: the epoch loop takes its loaded minibatches from a
// minibatchFeed, either inline (sampling and gathering on the training
// goroutine, in turn with the training steps) or from the pipeline, whose
// goroutines sample the next bulk and gather the next minibatch while the
// current one trains.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/gnn"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/internal/procstat"
	"github.com/bulksample/bulksample/sampling"
)

// loaded is one minibatch ready to train: its blocks (views of its bulk),
// its input features and labels in buf, and, on the last minibatch of a
// bulk, the bulk, which the trainer releases once the minibatch is trained,
// and its sampled edges, which the epoch then counts.
type loaded struct {
	mb    sampling.Minibatch
	in    gnn.Input
	buf   *inputBuf
	edges int64
	last  *sampled // the bulk, on its last minibatch
	err   error
}

// sampled is a sampled bulk: on the host, or on the device path
// (Trainer.DevicePath) in the backend's memory.
type sampled struct {
	host *sampling.Bulk
	dev  gnn.DeviceBulk
}

func (b *sampled) first() int {
	if b.dev != nil {
		return b.dev.First()
	}
	return b.host.First
}

func (b *sampled) len() int {
	if b.dev != nil {
		return b.dev.Len()
	}
	return b.host.Len()
}

func (b *sampled) edges() int64 {
	if b.dev != nil {
		return b.dev.SampledEdges()
	}
	return b.host.SampledEdges()
}

// sampleBulk samples the minibatches first.. of epoch: into the backend's
// memory on the device path, else to the host.
func (t *Trainer) sampleBulk(ctx context.Context, epoch, first int, seeds [][]int32) (*sampled, error) {
	if t.devSampler == nil {
		b, err := t.sampler.SampleBulk(ctx, epoch, first, seeds)
		if err != nil {
			return nil, err
		}
		return &sampled{host: b}, nil
	}
	db, err := t.devSampler.SampleOn(ctx, t.model.Backend(), epoch, first, seeds)
	if err != nil {
		return nil, err
	}
	t.live.add(db)
	return &sampled{dev: db}, nil
}

// releaseBulk gives b back to its sampler.
func (t *Trainer) releaseBulk(b *sampled) {
	if b.dev != nil {
		t.live.remove(b.dev)
		b.dev.Release()
		return
	}
	b.host.Release()
}

// loadFrom loads minibatch i of b into buf (Trainer.load; on the device
// path, the labels and the views of the bulk's blocks and input ids) as
// the item the trainer trains, which carries the bulk on its last
// minibatch.
func (t *Trainer) loadFrom(ctx context.Context, b *sampled, i int, buf *inputBuf) (loaded, error) {
	it := loaded{buf: buf}
	if i == b.len()-1 {
		it.last, it.edges = b, b.edges()
	}
	if b.dev == nil {
		it.mb = b.host.Minibatch(i)
		in, err := t.load(ctx, &it.mb, buf)
		it.in = in
		return it, err
	}
	dm, err := b.dev.Minibatch(i)
	if err != nil {
		return it, err
	}
	it.mb = sampling.Minibatch{Index: dm.Index, Seeds: dm.Seeds}
	it.in = gnn.Input{Blocks: dm.Blocks}
	buf.dids = dm.Inputs
	buf.labels = par.Resize(buf.labels, len(dm.Seeds))
	featurex.Labels(buf.labels, t.data.Labels, dm.Seeds)
	return it, nil
}

// liveBulks are the device bulks sampled and not yet released, safe for
// concurrent use (the pipeline's goroutines sample, the trainer releases).
type liveBulks struct {
	mu    sync.Mutex
	bulks []gnn.DeviceBulk
}

func (l *liveBulks) add(b gnn.DeviceBulk) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bulks = append(l.bulks, b)
}

func (l *liveBulks) remove(b gnn.DeviceBulk) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, v := range l.bulks {
		if v == b {
			l.bulks = slices.Delete(l.bulks, i, i+1)
			return
		}
	}
}

// releaseLive releases the device bulks that an epoch ended without
// training to their end (a stop, an error: in the pipeline's channels, or
// the bulk being trained), so that the sampler's held bulks are free for
// the next run. Call it when no goroutine uses them.
func (t *Trainer) releaseLive() {
	t.live.mu.Lock()
	bulks := t.live.bulks
	t.live.bulks = nil
	t.live.mu.Unlock()
	for _, b := range bulks {
		b.Release()
	}
}

// minibatchFeed gives the epoch loop its minibatches in order. next adds
// the phase times it spends on the training goroutine to ph; release hands
// back a trained minibatch's buffers.
type minibatchFeed interface {
	next(ctx context.Context, ph *PhaseTimes) (loaded, error)
	release(it loaded)
}

// firstBulk returns the bulk holding minibatch mb of ep.
func firstBulk(ep *sampling.EpochPlan, mb int) int {
	for b := range ep.NumBulks() {
		if first, seeds := ep.Bulk(b); mb < first+len(seeds) {
			return b
		}
	}
	return ep.NumBulks()
}

// sampleError wraps the error of the sampling of minibatches first.. as the
// epoch reports it.
func sampleError(first, n int, err error) error {
	return fmt.Errorf("sample minibatches %d..%d: %w", first, first+n-1, err)
}

// inlineFeed is the unpipelined feed (PipelineDepth 1): it samples a bulk
// when the previous one is trained and gathers each minibatch into the
// trainer's own buffer, on the training goroutine.
type inlineFeed struct {
	t     *Trainer
	ep    *sampling.EpochPlan
	epoch int
	pos   int      // the next minibatch to give
	bulk  *sampled // the bulk holding it, once sampled
}

func (f *inlineFeed) next(ctx context.Context, ph *PhaseTimes) (loaded, error) {
	t := f.t
	if f.bulk == nil || f.pos >= f.bulk.first()+f.bulk.len() {
		first, seeds := f.ep.Bulk(firstBulk(f.ep, f.pos))
		t.meter.Begin()
		bulk, err := t.sampleBulk(ctx, f.epoch, first, seeds)
		if err != nil {
			return loaded{}, sampleError(first, len(seeds), err)
		}
		ph.Sample += t.lap(PhaseSample)
		f.bulk = bulk
	}
	t.meter.Begin()
	it, err := t.loadFrom(ctx, f.bulk, f.pos-f.bulk.first(), &t.inputBuf)
	if err != nil {
		return loaded{}, fmt.Errorf("minibatch %d: %w", it.mb.Index, err)
	}
	ph.Extract += t.lap(PhaseExtract)
	f.pos++
	return it, nil
}

func (f *inlineFeed) release(it loaded) {
	if it.last != nil {
		f.t.releaseBulk(it.last) // the loaders are done with it; the trainer holds no view of it
		f.bulk = nil
	}
}

// pipeline is the feed of PipelineDepth 2: a sampling goroutine samples the
// epoch's bulks in order and a loading goroutine gathers their minibatches'
// features and labels in order, each up to depth items ahead of the
// training goroutine. It holds at most depth bulks (a token per bulk,
// returned when its last minibatch is trained: the one training and the
// next) and depth input buffers (the one training and the one being
// filled). On the device path (Trainer.DevicePath) the bulks are in the
// backend's memory until their Release, and the slots bound them to the
// two a device sampler holds; the loader calls no store there, so the
// sampler always has its own goroutine and samples bulk i+1 while bulk i
// trains.
//
// Each goroutine calls its component (Sampler, Features) in the epoch's
// order, whatever the timing; the Reducer stays on the training goroutine.
// The sampler has a goroutine of its own only beside a feature store that
// cannot share its communicator (ownComm): a *featurex.Local, which never
// communicates, or a *featurex.Dist, which exchanges on its own copy of the
// column communicator. With any other store the loading goroutine samples
// too, each bulk after the previous bulk's last gather (serial), because
// the store may communicate on the sampler's communicator (the grid's
// process column, which distsample.DistNodeWise uses), on which two
// goroutines would interleave their collectives in an order that differs
// between ranks. The next bulk's sampling then overlaps only the training
// of the previous bulk's last minibatches.
//
// A failure on either side stops the other: the loaders hand their error to
// the trainer in order, after the minibatches before it, as the unpipelined
// loop would meet it; the trainer's stop cancels the loaders' context and
// unblocks them, and wait returns when they have ended.
//
// A stop that every rank agreed on after the same step (TrainerOptions.Hooks.Stop)
// drains the pipeline instead: cancelling would abandon the collectives
// of one rank's loaders at another point than another rank's. Draining,
// each loader goes on while the trainer's releases let it (a free buffer,
// a slot for a bulk, a bulk the sampler still delivers) and ends where it
// would wait for the trainer. What the trainer released before the stop is
// the same on every rank, so every rank's loaders make the same calls
// before they end: at most depth more gathers and bulks.
type pipeline struct {
	t      *Trainer
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup

	bulks chan bulkOrError // sampler -> loader
	ready chan loaded      // loader -> trainer
	free  chan *inputBuf   // trainer -> loader: buffers to fill
	slots chan struct{}    // trainer -> sampler: room for a bulk (nil when serial)

	// draining is closed by drain; samplerDone and loaderDone when the
	// goroutine ends (samplerDone stays open when serial: no sampler).
	draining, samplerDone, loaderDone chan struct{}
	drained                           bool // drain was called (trainer's goroutine)

	// Wall times of the loaders' phases, read by the trainer at any time.
	sampleNS, extractNS atomic.Int64
	// The loaders' meters; read after wait.
	sampleMeter, loadMeter procstat.Meter
}

type bulkOrError struct {
	bulk *sampled
	err  error
}

// startPipeline starts the pipeline of epoch from minibatch from on.
func (t *Trainer) startPipeline(ctx context.Context, epoch int, ep *sampling.EpochPlan, from int) *pipeline {
	depth := t.opt.Runtime.PipelineDepth
	pctx, cancel := context.WithCancelCause(ctx)
	p := &pipeline{
		t:      t,
		cancel: cancel,
		bulks:  make(chan bulkOrError),
		ready:  make(chan loaded, depth),
		free:   make(chan *inputBuf, depth),

		draining:    make(chan struct{}),
		samplerDone: make(chan struct{}),
		loaderDone:  make(chan struct{}),
	}
	for len(t.bufs) < depth {
		t.bufs = append(t.bufs, &inputBuf{})
	}
	for _, b := range t.bufs[:depth] {
		p.free <- b
	}
	b0 := firstBulk(ep, from)
	// On the device path the loader calls no store (the training
	// goroutine gathers), so the sampler may have its goroutine and
	// samples a bulk while the previous one trains; its slots bound the
	// bulks alive to depth, which the device sampler holds.
	if !ownComm(t.data.Features) && t.devSampler == nil {
		// The loader samples each bulk after the previous one's last
		// gather: no more than two are ever alive, and no slots are
		// needed.
		p.wg.Go(func() {
			defer close(p.loaderDone)
			p.load(pctx, t, epoch, ep, b0, from, true)
		})
	} else {
		p.slots = make(chan struct{}, depth)
		for range depth {
			p.slots <- struct{}{}
		}
		p.wg.Go(func() {
			defer close(p.samplerDone)
			p.sample(pctx, t, epoch, ep, b0)
		})
		p.wg.Go(func() {
			defer close(p.loaderDone)
			p.load(pctx, t, epoch, ep, b0, from, false)
		})
	}
	return p
}

// CommUser is implemented by a component of Data (the Sampler, the
// Features or the Reducer) that communicates with other ranks: Comm returns
// a communicator it calls (any one of them: the ranks of one job share
// what dist.ConcurrentComms reports). The pipeline calls these components
// from different goroutines, which two communicating components may share
// only when dist.ConcurrentComms allows it (under MPI: when the library
// granted MPI_THREAD_MULTIPLE); NewTrainer otherwise runs at PipelineDepth
// 1 (Trainer.PipelineDepth says why). distsample.DistNodeWise,
// distsample.DistLayerWise, featurex.Dist and DataParallel implement it; a
// component that communicates without implementing it is taken to be safe
// beside the others.
type CommUser interface {
	Comm() dist.Comm
}

// effectiveDepth returns the pipeline depth at which the trainer runs d when
// asked for depth and, when lower, why: 1 when two of its components
// communicate (CommUser) and one of them may not be called beside another
// (dist.ConcurrentComms). A single communicating component is called from
// one goroutine at a time, which every backend allows.
func effectiveDepth(d *Data, depth int) (int, string) {
	if depth < 2 {
		return depth, ""
	}
	users := 0
	var serial []string
	for _, c := range []struct {
		name string
		comp any
	}{{"Sampler", d.Sampler}, {"Features", d.Features}, {"Reducer", d.Reducer}} {
		cu, ok := c.comp.(CommUser)
		if !ok {
			continue
		}
		users++
		if !dist.ConcurrentComms(cu.Comm()) {
			serial = append(serial, c.name)
		}
	}
	if users < 2 || len(serial) == 0 {
		return depth, ""
	}
	return 1, fmt.Sprintf("the input pipeline is off (as with PipelineDepth 1): the communicator of the %s may not be called beside another component's (under MPI: the library did not grant MPI_THREAD_MULTIPLE)",
		strings.Join(serial, " and the "))
}

// ownComm reports whether the store s communicates on no communicator a
// sampler may use, so that the sampler may run on a goroutine of its own.
func ownComm(s featurex.Store) bool {
	switch s.(type) {
	case *featurex.Local, *featurex.Dist:
		return true
	}
	return false
}

// take receives from c, waiting for it, and reports whether it did; it
// gives up when ctx is done or, once the pipeline drains, when c holds
// nothing: what the trainer sent before drain is always taken, so that
// draining ranks make the same calls whatever the timing.
func take[T any](ctx context.Context, p *pipeline, c <-chan T) (T, bool) {
	var v T
	select {
	case v = <-c:
		return v, true
	case <-ctx.Done():
		return v, false
	case <-p.draining:
		select {
		case v = <-c:
			return v, true
		default:
			return v, false
		}
	}
}

// sample samples bulks b0.. of ep in order, each once a slot is free, and
// hands them to the loader; it stops after an error, when ctx is done or
// when draining leaves it no slot.
func (p *pipeline) sample(ctx context.Context, t *Trainer, epoch int, ep *sampling.EpochPlan, b0 int) {
	for b := b0; b < ep.NumBulks(); b++ {
		if _, ok := take(ctx, p, p.slots); !ok {
			return
		}
		msg := p.sampleBulk(ctx, t, epoch, ep, b)
		select {
		case p.bulks <- msg:
		case <-p.loaderDone: // drained: the bulk goes unused
			if msg.bulk != nil {
				t.releaseBulk(msg.bulk)
			}
		case <-ctx.Done():
			return
		}
		if msg.err != nil {
			return
		}
	}
}

// sampleBulk samples bulk b of ep and adds the time to the sampling phase.
func (p *pipeline) sampleBulk(ctx context.Context, t *Trainer, epoch int, ep *sampling.EpochPlan, b int) bulkOrError {
	first, seeds := ep.Bulk(b)
	p.sampleMeter.Begin()
	bulk, err := t.sampleBulk(ctx, epoch, first, seeds)
	c := p.sampleMeter.End(PhaseSample)
	p.sampleNS.Add(int64(c.Seconds * float64(time.Second)))
	if err != nil {
		return bulkOrError{err: sampleError(first, len(seeds), err)}
	}
	return bulkOrError{bulk: bulk}
}

// load gathers the minibatches of bulks b0.. of ep, from minibatch from on,
// each into a free buffer, and hands them to the trainer in order; with
// serial it samples the bulks itself. It hands over the first error and
// stops, or stops when ctx is done, or, draining, when it has no buffer
// or the sampler no more bulks.
func (p *pipeline) load(ctx context.Context, t *Trainer, epoch int, ep *sampling.EpochPlan, b0, from int, serial bool) {
	send := func(it loaded) bool {
		select {
		case p.ready <- it: // first, so that a drain does not drop it
			return it.err == nil
		default:
		}
		select {
		case p.ready <- it:
			return it.err == nil
		case <-ctx.Done():
			return false
		case <-p.draining:
			return false
		}
	}
	for b := b0; b < ep.NumBulks(); b++ {
		var msg bulkOrError
		if serial {
			msg = p.sampleBulk(ctx, t, epoch, ep, b)
		} else {
			// Draining too, a bulk the sampler is sampling is waited
			// for: it made the calls on every rank.
			select {
			case msg = <-p.bulks:
			case <-p.samplerDone:
				return
			case <-ctx.Done():
				return
			}
		}
		if msg.err != nil {
			send(loaded{err: msg.err})
			return
		}
		// Nothing reads the bulk after its last minibatch is handed over:
		// the trainer then releases it.
		bulk, n := msg.bulk, msg.bulk.len()
		for i := max(from-bulk.first(), 0); i < n; i++ {
			buf, ok := take(ctx, p, p.free)
			if !ok {
				return
			}
			p.loadMeter.Begin()
			it, err := t.loadFrom(ctx, bulk, i, buf)
			c := p.loadMeter.End(PhaseExtract)
			p.extractNS.Add(int64(c.Seconds * float64(time.Second)))
			if err != nil {
				it.err = fmt.Errorf("minibatch %d: %w", it.mb.Index, err)
			}
			if !send(it) {
				return
			}
		}
	}
}

// errPipelineEnded is the error of a next after the loaders ended without
// handing over every minibatch; it means a bug in the pipeline.
var errPipelineEnded = errors.New("train: the input pipeline ended early")

// next waits for the next loaded minibatch; the wait is the phase Wait.
func (p *pipeline) next(ctx context.Context, ph *PhaseTimes) (loaded, error) {
	p.t.meter.Begin()
	var it loaded
	select {
	case it = <-p.ready:
	case <-ctx.Done():
		return loaded{}, ctx.Err()
	}
	ph.Wait += p.t.lap(PhaseWait)
	if it.err != nil {
		return loaded{}, it.err
	}
	if it.buf == nil {
		return loaded{}, errPipelineEnded
	}
	return it, nil
}

// release returns it's buffer to the loader and, after a bulk's last
// minibatch, releases the bulk and returns its slot to the sampler. Neither
// send blocks: there are as many buffers and slots as the channels hold.
func (p *pipeline) release(it loaded) {
	p.free <- it.buf
	if it.last != nil {
		p.t.releaseBulk(it.last) // the loaders are done with it; the trainer holds no view of it
		if p.slots != nil {
			p.slots <- struct{}{}
		}
	}
}

// times returns the wall times of the sampling and the gathering so far.
func (p *pipeline) times() (sample, extract time.Duration) {
	return time.Duration(p.sampleNS.Load()), time.Duration(p.extractNS.Load())
}

// stop cancels the loaders with cause; it does not wait for them.
func (p *pipeline) stop(cause error) { p.cancel(cause) }

// costs returns the loaders' phases: sampling, then gathering. Call it
// after wait.
func (p *pipeline) costs() PhaseCosts {
	return append(p.sampleMeter.Phases(), p.loadMeter.Phases()...)
}

// errPipelineDone is the cause with which wait cancels loaders that are
// still running.
var errPipelineDone = errors.New("train: the epoch's training loop ended")

// drain lets the loaders finish what the trainer's releases so far allow
// and end (see pipeline); wait then waits for them without cancelling.
func (p *pipeline) drain() {
	p.drained = true
	close(p.draining)
}

// wait stops the loaders, if they still run and the pipeline is not
// draining, and waits until they have ended.
func (p *pipeline) wait() {
	if !p.drained {
		p.cancel(errPipelineDone)
	}
	p.wg.Wait()
	p.cancel(errPipelineDone)
}

// endPipeline waits for the current epoch's pipeline, if any, to end, and
// forgets it, then releases the device bulks the epoch left (releaseLive).
// Run calls it after saving the checkpoint of a stopped epoch, so that the
// checkpoint is written even if a loader is slow to stop.
func (t *Trainer) endPipeline() {
	if t.pipe != nil {
		t.pipe.wait()
		t.pipe = nil
	}
	t.releaseLive()
}
