package featurex_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/featurex/featurextest"
	"github.com/bulksample/bulksample/internal/hugemem"
	"github.com/bulksample/bulksample/spgemm"
)

// distMode is how the adapter reads rows: one exchange per Gather, or a
// Bulk fetch followed by local gathers.
type distMode int

const (
	perMinibatch distMode = iota
	perBulk
)

// distGroup is the whole in-process job of a Dist store seen as one Store,
// so that the single-caller conformance kit can drive it: its Gather runs
// every rank's Gather at once, rank 0 on the caller's ids and dst, rank r
// on a rank-dependent list (a rotation of the ids, and nothing at all on
// the last rank of a job of more than one), and checks that every rank got
// the rows of its list. An error on rank 0 must be an error on every rank
// (none may be left waiting).
type distGroup struct {
	stores []*featurex.Dist
	bulks  []*featurex.Bulk
	mode   distMode
	n, f   int
}

// newDistGroup builds p in-process ranks with replication c and a Dist
// store over features on each.
func newDistGroup(t testing.TB, p, c int, features []float32, f int, mode distMode, opt func(g *dist.Grid) featurex.DistOptions) *distGroup {
	t.Helper()
	world, err := dist.NewInProcWorld(p, dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(features) / f
	g := &distGroup{stores: make([]*featurex.Dist, p), mode: mode, n: n, f: f}
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r, w := range world {
		wg.Go(func() {
			grid, err := dist.NewGrid(context.Background(), w, c, n)
			if err != nil {
				errs[r] = err
				w.Abort(err)
				return
			}
			lo, hi := grid.MyRows()
			var o featurex.DistOptions
			if opt != nil {
				o = opt(grid)
			}
			g.stores[r], errs[r] = featurex.NewDist(context.Background(), grid, features[int(lo)*f:int(hi)*f], f, o)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, s := range g.stores {
		g.bulks = append(g.bulks, s.NewBulk())
	}
	return g
}

func (g *distGroup) NumVertices() int { return g.stores[0].NumVertices() }
func (g *distGroup) NumFeatures() int { return g.stores[0].NumFeatures() }

// rankList returns the positions of ids that rank r of p reads.
func rankList(r, p, n int) []int {
	if r == 0 {
		return seq(n)
	}
	if r == p-1 || n == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = (i + r) % n
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (g *distGroup) Gather(ctx context.Context, dst []float32, ids []int32) error {
	p := len(g.stores)
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // a hang fails rather than blocks the test
	defer cancel()
	lists, dsts := make([][]int32, p), make([][]float32, p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		pos := rankList(r, p, len(ids))
		if r == 0 {
			lists[r], dsts[r] = ids, dst
		} else {
			for _, i := range pos {
				lists[r] = append(lists[r], ids[i])
			}
			dsts[r] = make([]float32, len(pos)*g.f)
		}
		wg.Go(func() {
			if g.mode == perBulk {
				// Fetch the list in two overlapping halves, as two
				// minibatches of one bulk.
				l := lists[r]
				if errs[r] = g.bulks[r].Fetch(ctx, l[:len(l)/2], l[len(l)/3:]); errs[r] != nil {
					return
				}
				errs[r] = g.bulks[r].Gather(ctx, dsts[r], l)
				return
			}
			errs[r] = g.stores[r].Gather(ctx, dsts[r], lists[r])
		})
	}
	wg.Wait()
	if errs[0] != nil {
		for r, err := range errs {
			if err == nil {
				return fmt.Errorf("rank 0 failed (%v) but rank %d did not", errs[0], r)
			}
		}
		return errs[0]
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for r := 1; r < p; r++ {
		for k, i := range rankList(r, p, len(ids)) {
			if !slices.Equal(dsts[r][k*g.f:(k+1)*g.f], dst[i*g.f:(i+1)*g.f]) {
				return fmt.Errorf("rank %d: row %d (vertex %d) differs from rank 0's", r, k, ids[i])
			}
		}
	}
	return nil
}

// fakeDegrees gives the cache a ranking without a graph.
func fakeDegrees(g *dist.Grid) featurex.DistOptions {
	lo, hi := g.MyRows()
	deg := make([]int64, hi-lo)
	for i := range deg {
		v := uint64(lo) + uint64(i)
		deg[i] = int64((v * 0x9e3779b97f4a7c15) >> 60) // 0..15
	}
	return featurex.DistOptions{CacheBytes: 3000, Degrees: deg}
}

// TestDistConformance runs the Store conformance kit on the distributed
// store for p in {1, 2, 4} and c in {1, 2}, one exchange per gather, one
// per bulk, and with a hot-vertex cache.
func TestDistConformance(t *testing.T) {
	for _, pc := range [][2]int{{1, 1}, {2, 1}, {2, 2}, {4, 1}, {4, 2}} {
		for _, tc := range []struct {
			name string
			mode distMode
			opt  func(*dist.Grid) featurex.DistOptions
		}{
			{"minibatch", perMinibatch, nil},
			{"bulk", perBulk, nil},
			{"cache", perMinibatch, fakeDegrees},
		} {
			t.Run(fmt.Sprintf("p=%d/c=%d/%s", pc[0], pc[1], tc.name), func(t *testing.T) {
				featurextest.Run(t, func(t *testing.T, x []float32, f int) featurex.Store {
					return newDistGroup(t, pc[0], pc[1], x, f, tc.mode, tc.opt)
				})
			})
		}
	}
}

func randomFeatures(n, f int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float32, n*f)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// TestDistTraffic checks the bytes of one gather against the protocol
// (the basis of distbench's cost model): per rank, 16 bytes of status to
// each other rank of its column, 4 per distinct remote id, 4f per row it
// serves; nothing for rows of its own block or duplicates.
func TestDistTraffic(t *testing.T) {
	const n, f, p, c = 100, 3, 4, 2 // 2 blocks of 50 rows
	g := newDistGroup(t, p, c, randomFeatures(n, f, 1), f, perMinibatch, nil)
	// Every rank asks for 3 rows of its own block, twice for vertex 60 or
	// 10 (the other block) and once for 61 or 11.
	ids := map[int][]int32{0: {0, 1, 2, 60, 60, 61}, 1: {0, 1, 2, 60, 60, 61}, 2: {50, 51, 52, 10, 10, 11}, 3: {50, 51, 52, 10, 10, 11}}
	var wg sync.WaitGroup
	errs := make([]error, p)
	for r, s := range g.stores {
		wg.Go(func() { errs[r] = s.Gather(context.Background(), make([]float32, len(ids[r])*f), ids[r]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for r, s := range g.stores {
		st := s.Stats()
		want := featurex.DistStats{Exchanges: 1, Rows: 6, LocalRows: 3, RemoteRows: 3, Fetched: 2, Served: 2}
		st.Time = want.Time
		// The buffers' growth is TestDistBuffersReused's.
		st.Grows, st.GrowBytes = 0, 0
		if st != want {
			t.Errorf("rank %d: stats %+v; want %+v", r, st, want)
		}
	}
	// The column communicator's counters: (q-1)·16 + 2·4 + 2·4f bytes.
	var sum dist.Stats
	for _, s := range g.stores {
		sum.Add(s.Comm().Stats())
	}
	if want := int64(p * (16 + 2*4 + 2*4*f)); sum.Bytes[dist.PhaseFeatures] != want {
		t.Errorf("feature bytes of all ranks = %d; want %d", sum.Bytes[dist.PhaseFeatures], want)
	}
}

// TestDistZeroIDs: ranks with nothing to read take part in the exchange
// that serves the others, and per-bulk fetches move each distinct row once.
func TestDistZeroIDs(t *testing.T) {
	const n, f, p = 40, 2, 4
	x := randomFeatures(n, f, 2)
	g := newDistGroup(t, p, 1, x, f, perMinibatch, nil)
	var wg sync.WaitGroup
	errs := make([]error, p)
	got := make([]float32, 3*f)
	for r, s := range g.stores {
		wg.Go(func() {
			if r == 0 {
				errs[r] = s.Gather(context.Background(), got, []int32{39, 12, 25})
				return
			}
			for range 1 {
				errs[r] = s.Gather(context.Background(), nil, nil)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	want := slices.Concat(x[39*f:40*f], x[12*f:13*f], x[25*f:26*f])
	if !slices.Equal(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
	if s := g.stores[3].Stats(); s.Served != 1 || s.Rows != 0 {
		t.Errorf("rank 3 served %d rows and read %d; want 1 and 0", s.Served, s.Rows)
	}
}

// TestDistCache: the cache holds the top-degree vertices, serves them
// without communication, and never changes a gathered row; with a budget
// of the whole features no row travels.
func TestDistCache(t *testing.T) {
	const n, f, p, c = 200, 4, 4, 1
	x := randomFeatures(n, f, 3)
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(n - 1 - i)
	}
	for _, tc := range []struct {
		budget   int64
		rows     int64
		fetched0 int64 // rows rank 0 fetches
	}{
		{0, 0, 150},
		{10 * 4 * f, 10, 150 - 10 + 3}, // 10 hot rows; vertices 0,1,2 (block 0) are among the hot ones but local
		{4 * f * n, n, 0},
		{1 << 40, n, 0},
	} {
		g := newDistGroup(t, p, c, x, f, perMinibatch, func(g *dist.Grid) featurex.DistOptions {
			lo, hi := g.MyRows()
			deg := make([]int64, hi-lo)
			for i := range deg {
				deg[i] = int64(lo) + int64(i) // higher ids are hotter
				if lo == 0 && i < 3 {
					deg[i] = 1000 // 0, 1, 2 are the hottest
				}
			}
			return featurex.DistOptions{CacheBytes: tc.budget, Degrees: deg}
		})
		got := make([]float32, n*f)
		if err := g.Gather(context.Background(), got, ids); err != nil {
			t.Fatal(err)
		}
		want := make([]float32, 0, n*f)
		for _, v := range ids {
			want = append(want, x[int(v)*f:int(v+1)*f]...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("budget %d: rows differ", tc.budget)
		}
		st := g.stores[0].Stats()
		if st.CacheRows != tc.rows || st.CacheBytes != tc.rows*4*f {
			t.Errorf("budget %d: cache of %d rows, %d bytes; want %d", tc.budget, st.CacheRows, st.CacheBytes, tc.rows)
		}
		if st.Fetched != tc.fetched0 || st.LocalRows+st.CacheHits+st.RemoteRows != st.Rows {
			t.Errorf("budget %d: rank 0 stats %+v; want %d fetched", tc.budget, st, tc.fetched0)
		}
		if tc.budget > 0 && (st.HitRate() <= 0 || st.HitRate() > 1) {
			t.Errorf("budget %d: hit rate %v", tc.budget, st.HitRate())
		}
		if st.SavedBytes != st.CacheHits*4*f {
			t.Errorf("budget %d: %d bytes saved by %d hits of %d features", tc.budget, st.SavedBytes, st.CacheHits, f)
		}
		hot := 0
		for v := range int32(n) {
			if g.stores[2].InCache(v) {
				hot++
			}
		}
		if int64(hot) != tc.rows || (tc.rows > 0 && !g.stores[3].InCache(n-1)) {
			t.Errorf("budget %d: %d vertices in the cache; want %d, the highest ids among them", tc.budget, hot, tc.rows)
		}
	}
}

// TestColumnCounts compares the distributed column counts with a direct
// count over the whole matrix.
func TestColumnCounts(t *testing.T) {
	const n = 57
	rng := rand.New(rand.NewPCG(4, 4))
	var src, dst []int32
	for range 400 {
		src, dst = append(src, int32(rng.IntN(n))), append(dst, int32(rng.IntN(n)))
	}
	a, err := spgemm.FromCOO(n, n, src, dst, nil, &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int64, n)
	for _, v := range a.Indices {
		want[v]++
	}
	for _, pc := range [][2]int{{1, 1}, {3, 1}, {4, 2}} {
		world, _ := dist.NewInProcWorld(pc[0], dist.Options{})
		got := make([][]int64, pc[0])
		errs := make([]error, pc[0])
		var wg sync.WaitGroup
		for r, w := range world {
			wg.Go(func() {
				g, err := dist.NewGrid(context.Background(), w, pc[1], n)
				if err != nil {
					errs[r] = err
					return
				}
				m, err := dist.Distribute(g, a)
				if err != nil {
					errs[r] = err
					return
				}
				got[r], errs[r] = featurex.ColumnCounts(context.Background(), g, m.Local)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for r := range pc[0] {
			lo, hi := dist.BlockRange(n, pc[0]/pc[1], r/pc[1])
			if !slices.Equal(got[r], want[lo:hi]) {
				t.Errorf("p=%d c=%d rank %d: counts %v; want %v", pc[0], pc[1], r, got[r], want[lo:hi])
			}
		}
	}
}

// TestNewDistErrors: a bad argument on one rank is an error on every rank,
// naming the rank and what is wrong.
func TestNewDistErrors(t *testing.T) {
	const n, f, p = 10, 2, 2
	x := randomFeatures(n, f, 5)
	tests := []struct {
		name   string
		make   func(r int, lo, hi int32) ([]float32, int, featurex.DistOptions)
		inside string
	}{
		{"short block", func(r int, lo, hi int32) ([]float32, int, featurex.DistOptions) {
			if r == 1 {
				return x[int(lo)*f : int(hi)*f-1], f, featurex.DistOptions{}
			}
			return x[int(lo)*f : int(hi)*f], f, featurex.DistOptions{}
		}, "feature values"},
		{"width", func(r int, lo, hi int32) ([]float32, int, featurex.DistOptions) {
			return x[int(lo)*f : int(hi)*f], 0, featurex.DistOptions{}
		}, "features per vertex"},
		{"cache disagrees", func(r int, lo, hi int32) ([]float32, int, featurex.DistOptions) {
			return x[int(lo)*f : int(hi)*f], f, featurex.DistOptions{CacheBytes: int64(r) * 8, Degrees: make([]int64, hi-lo)}
		}, "CacheBytes"},
		{"no degrees", func(r int, lo, hi int32) ([]float32, int, featurex.DistOptions) {
			return x[int(lo)*f : int(hi)*f], f, featurex.DistOptions{CacheBytes: 8}
		}, "Degrees"},
		{"negative cache", func(r int, lo, hi int32) ([]float32, int, featurex.DistOptions) {
			return x[int(lo)*f : int(hi)*f], f, featurex.DistOptions{CacheBytes: -1}
		}, "CacheBytes"},
	}
	for _, tc := range tests {
		world, _ := dist.NewInProcWorld(p, dist.Options{})
		errs := make([]error, p)
		var wg sync.WaitGroup
		for r, w := range world {
			wg.Go(func() {
				g, err := dist.NewGrid(context.Background(), w, 1, n)
				if err != nil {
					errs[r] = err
					return
				}
				lo, hi := g.MyRows()
				blk, ff, o := tc.make(r, lo, hi)
				_, errs[r] = featurex.NewDist(context.Background(), g, blk, ff, o)
			})
		}
		wg.Wait()
		for r, err := range errs {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("rank %d", r)) {
				t.Errorf("%s: rank %d: err = %v; want an error naming the rank", tc.name, r, err)
			}
		}
		if !strings.Contains(errors.Join(errs...).Error(), tc.inside) {
			t.Errorf("%s: errors %v; want one naming %s", tc.name, errs, tc.inside)
		}
	}
}

// TestBulkNotFetched: a bulk gather of a remote id that the fetch did not
// bring is an error naming it, not a zero row.
func TestBulkNotFetched(t *testing.T) {
	const n, f = 20, 2
	g := newDistGroup(t, 2, 1, randomFeatures(n, f, 6), f, perBulk, nil)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for r, b := range g.bulks {
		wg.Go(func() { errs[r] = b.Fetch(context.Background(), []int32{int32(19 - 10*r)}) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	err := g.bulks[0].Gather(context.Background(), make([]float32, f), []int32{15})
	if err == nil || !strings.Contains(err.Error(), "15") {
		t.Errorf("err = %v; want one naming vertex 15", err)
	}
	if err := g.bulks[0].Gather(context.Background(), make([]float32, 2*f), []int32{19, 3}); err != nil {
		t.Error(err)
	}
}

// TestDistWarmBuffers: exchanges large enough for the store's buffers to
// live on huge-page mappings return the same rows as the file when the
// buffers grow, when they are reused, and through a Bulk alternating two
// of them (its id arrays swapping with the store's); and once warm, an
// exchange of megabytes allocates (almost) nothing on the Go heap. Two
// shapes: rows of 64 values, whose row buffers reach hugemem.MinBytes
// (2.5 MiB per block), and rows of one value, whose row buffers stay on
// the heap but whose id arrays (50,000-100,000 ids, 200-400 KB: under
// MinBytes) must be mapped too.
func TestDistWarmBuffers(t *testing.T) {
	const p = 2
	for _, tc := range []struct {
		name string
		n, f int
		// mappedIDs is the number of id arrays of at least
		// hugemem.MinBytes that each rank must hold mapped once warm:
		// what it asks and what it is asked, and per Bulk the ids of the
		// Bulk and the store's spare.
		mappedIDs [2]int
	}{
		{"rows", 20000, 64, [2]int{0, 0}},
		{"ids", 200000, 1, [2]int{2, 3}},
	} {
		for _, mode := range []distMode{perMinibatch, perBulk} {
			t.Run(fmt.Sprintf("%s/mode=%d", tc.name, mode), func(t *testing.T) {
				warmBuffers(t, tc.n, tc.f, p, mode, tc.mappedIDs[mode])
			})
		}
	}
}

func warmBuffers(t *testing.T, n, f, p int, mode distMode, mappedIDs int) {
	x := randomFeatures(n, f, 5)
	g := newDistGroup(t, p, 1, x, f, mode, nil)
	defer func() {
		for _, s := range g.stores {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}
	}()
	// Each rank asks for a part of the other block, then all of it, in a
	// rotated order so that positions differ from ids.
	memo := map[[2]int][]int32{}
	for r := range p {
		for _, rows := range []int{n / 4, n / 2} {
			lo := int32((1 - r) * n / 2)
			ids := make([]int32, rows)
			for i := range ids {
				ids[i] = lo + int32((i*7919)%rows)
			}
			memo[[2]int{r, rows}] = ids
		}
	}
	lists := func(r, rows int) []int32 { return memo[[2]int{r, rows}] }
	dst := make([][]float32, p)
	round := func(rows int) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, p)
		for r, s := range g.stores {
			wg.Go(func() {
				ids := lists(r, rows)
				dst[r] = slices.Grow(dst[r][:0], rows*f)[:rows*f]
				if mode == perBulk {
					// A new Bulk each round, as a trainer may make one
					// per epoch, the last one released.
					g.bulks[r].Release()
					g.bulks[r] = s.NewBulk()
					if errs[r] = g.bulks[r].Fetch(context.Background(), ids); errs[r] != nil {
						return
					}
					errs[r] = g.bulks[r].Gather(context.Background(), dst[r], ids)
					return
				}
				errs[r] = s.Gather(context.Background(), dst[r], ids)
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for r := range p {
			for i, v := range lists(r, rows) {
				if !slices.Equal(dst[r][i*f:(i+1)*f], x[int(v)*f:int(v+1)*f]) {
					t.Fatalf("%d rows: rank %d, row %d (vertex %d) differs", rows, r, i, v)
				}
			}
		}
	}
	round(n / 4) // rows: 1.25 MiB, Go heap; ids: 50,000, Go heap
	round(n / 2) // rows grow onto huge-page mappings; ids: 100,000, mapped
	round(n / 2) // a Bulk's second buffers
	// The mapped row buffers (none for f = 1: 400 KB): what a rank
	// fetched and what it served, and the mapped id arrays.
	rowBytes := int64(0)
	if f > 1 {
		rowBytes = 2 * int64(n/2) * int64(f) * 4
	}
	want := rowBytes + int64(mappedIDs)*hugemem.MinBytes
	mapped := make([]int64, p)
	for r, s := range g.stores {
		if mapped[r] = s.Stats().BufferBytes; mapped[r] < want {
			t.Errorf("rank %d holds %d bytes of mapped exchange buffers; want at least %d (rows %d + %d id arrays of %d)",
				r, mapped[r], want, rowBytes, mappedIDs, hugemem.MinBytes)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 3 {
		round(n / 2)
	}
	runtime.ReadMemStats(&after)
	for r, s := range g.stores {
		if b := s.Stats().BufferBytes; b != mapped[r] {
			t.Errorf("rank %d's mapped exchange buffers went from %d to %d bytes in warm rounds; want them reused", r, mapped[r], b)
		}
	}
	// Each round moves 2 x 2.5 MiB of rows or 2 x 400 KB of ids;
	// goroutines, error slices and the transport's bookkeeping take a
	// few KiB.
	if a := after.TotalAlloc - before.TotalAlloc; a > 64<<10 {
		t.Errorf("3 warm rounds allocated %d bytes on the Go heap; want under 64 KiB", a)
	}
}

// TestDistBuffersReused gathers a sequence of lists of changing sizes,
// twice, through stores whose buffers grow only when an exchange needs
// more (and are pre-faulted then): every gather must return the rows of
// its own list (never stale rows of a larger earlier exchange left in a
// reused buffer), and the second pass, whose exchanges all fit the
// buffers the first left, must grow none and map no more memory. Row
// buffers of 64 values per row reach hugemem.MinBytes, so the mapped,
// pre-faulted path is the one exercised.
func TestDistBuffersReused(t *testing.T) {
	const n, f = 40000, 64
	x := randomFeatures(n, f, 11)
	for _, tc := range []struct {
		p, c  int
		mode  distMode
		sizes []int // rows of rank 0's list, gather after gather
	}{
		{2, 1, perMinibatch, []int{n / 8, n / 2, n / 16, n / 2, n / 4}},
		{2, 1, perBulk, []int{n / 8, n / 2, n / 16, n / 2, n / 4}},
		{4, 1, perMinibatch, []int{n / 2, n / 4, n, n / 8, n}},
		{4, 2, perMinibatch, []int{n / 4, n, n / 2}},
		{4, 2, perBulk, []int{n, n / 4, n / 2, n}},
	} {
		t.Run(fmt.Sprintf("p=%d/c=%d/mode=%d", tc.p, tc.c, tc.mode), func(t *testing.T) {
			g := newDistGroup(t, tc.p, tc.c, x, f, tc.mode, nil)
			defer func() {
				for _, s := range g.stores {
					if err := s.Close(); err != nil {
						t.Error(err)
					}
				}
			}()
			// Each size's list starts at its own offset, so that a
			// stale row left from another list would differ.
			list := func(k, rows int) []int32 {
				ids := make([]int32, rows)
				for i := range ids {
					ids[i] = int32((k*977 + i*7919) % n)
				}
				return ids
			}
			pass := func() (grows, mapped []int64) {
				t.Helper()
				for k, rows := range tc.sizes {
					ids := list(k, rows)
					dst := make([]float32, rows*f)
					if err := g.Gather(context.Background(), dst, ids); err != nil {
						t.Fatalf("gather %d (%d rows): %v", k, rows, err)
					}
					for i, v := range ids {
						if !slices.Equal(dst[i*f:(i+1)*f], x[int(v)*f:int(v+1)*f]) {
							t.Fatalf("gather %d (%d rows): row %d (vertex %d) differs from the features", k, rows, i, v)
						}
					}
				}
				for _, s := range g.stores {
					st := s.Stats()
					grows, mapped = append(grows, st.Grows), append(mapped, st.BufferBytes)
				}
				return grows, mapped
			}
			grows1, mapped1 := pass()
			if tc.c < tc.p && grows1[0] == 0 {
				t.Errorf("rank 0 grew no buffer in the first pass; want its buffers made there")
			}
			grows2, mapped2 := pass()
			for r := range g.stores {
				if grows2[r] != grows1[r] || mapped2[r] != mapped1[r] {
					t.Errorf("rank %d: second pass grew buffers %d -> %d times, mapped %d -> %d bytes; want no growth once warm",
						r, grows1[r], grows2[r], mapped1[r], mapped2[r])
				}
			}
		})
	}
}
