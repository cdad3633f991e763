package dataset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeWorld is an in-process BlockComm of size goroutine ranks: every
// collective deposits each rank's slice and waits for all of them, or for
// the job's abort.
type fakeWorld struct {
	size  int
	mu    sync.Mutex
	cond  *sync.Cond
	slots []any
	in    int // ranks that deposited in this round
	gen   int // rounds completed
	out   int // ranks that read this round's slots
	err   error
}

type fakeRank struct {
	w *fakeWorld
	r int
}

func newFakeWorld(size int) []BlockComm {
	w := &fakeWorld{size: size, slots: make([]any, size)}
	w.cond = sync.NewCond(&w.mu)
	ranks := make([]BlockComm, size)
	for r := range ranks {
		ranks[r] = fakeRank{w, r}
	}
	return ranks
}

// abort ends the job: every pending and later collective fails with err
// (as MPI_Abort ends the ranks).
func (w *fakeWorld) abort(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.err = err
	w.cond.Broadcast()
}

// dead blocks until the job is aborted and returns the abort's error:
// a killed rank, which never comes to a collective again.
func (w *fakeWorld) dead() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.err == nil {
		w.cond.Wait()
	}
	return w.err
}

// waiting returns the ranks waiting in the collective in progress.
func (w *fakeWorld) waiting() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.in
}

// exchange deposits v and returns every rank's, in rank order.
func (f fakeRank) exchange(v any) ([]any, error) {
	w := f.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.out > 0 && w.err == nil { // the previous round is still being read
		w.cond.Wait()
	}
	if w.err != nil {
		return nil, w.err
	}
	w.slots[f.r] = v
	w.in++
	gen := w.gen
	if w.in == w.size {
		w.in, w.out = 0, w.size
		w.gen++
		w.cond.Broadcast()
	}
	for w.gen == gen && w.err == nil {
		w.cond.Wait()
	}
	if w.err != nil {
		return nil, w.err
	}
	all := slices.Clone(w.slots)
	if w.out--; w.out == 0 {
		w.cond.Broadcast()
	}
	return all, nil
}

func (f fakeRank) Rank() int { return f.r }
func (f fakeRank) Size() int { return f.w.size }
func (f fakeRank) AllgatherInt64(_ context.Context, v []int64) ([]int64, error) {
	all, err := f.exchange(slices.Clone(v))
	var out []int64
	for _, x := range all {
		out = append(out, x.([]int64)...)
	}
	return out, err
}
func (f fakeRank) AllgathervInt32(_ context.Context, v []int32, counts []int) ([]int32, error) {
	all, err := f.exchange(slices.Clone(v))
	if err != nil {
		return nil, err
	}
	var out []int32
	for r, x := range all {
		if len(x.([]int32)) != counts[r] {
			return nil, fmt.Errorf("rank %d sent %d, counts say %d", r, len(x.([]int32)), counts[r])
		}
		out = append(out, x.([]int32)...)
	}
	return out, nil
}

func (f fakeRank) AlltoallvInt64(_ context.Context, send []int64, counts []int, recv []int64) ([]int64, error) {
	type part struct {
		send   []int64
		counts []int
	}
	all, err := f.exchange(part{slices.Clone(send), slices.Clone(counts)})
	if err != nil {
		return nil, err
	}
	out := recv[:0]
	for r, x := range all {
		pt := x.(part)
		if len(pt.counts) != f.w.size {
			return nil, fmt.Errorf("rank %d gave %d counts for %d ranks", r, len(pt.counts), f.w.size)
		}
		off := 0
		for d := range f.r {
			off += pt.counts[d]
		}
		out = append(out, pt.send[off:off+pt.counts[f.r]]...)
	}
	return out, nil
}

// writeRMATRanks writes RMAT(opt) relabelled by rl to path from p
// goroutine ranks.
func writeRMATRanks(t *testing.T, opt RMATOptions, rl RelabelOptions, p int, path, name string) {
	t.Helper()
	ranks := newFakeWorld(p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() {
			f, err := GenerateRMATFile(context.Background(), opt, rl, ranks[r])
			if err == nil {
				err = f.Write(context.Background(), path, name)
			}
			errs[r] = err
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d of %d: %v", r, p, err)
		}
	}
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestRMATFileGolden: the native files written by blocks are the bytes
// `bulksample gen rmat` wrote before they were (SHA-256 of the files of
// main de0ab87, whose generator built the edge list and Save wrote the
// CSR), from one process and from several.
func TestRMATFileGolden(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		opt  RMATOptions
		name string
		sum  string
	}{
		{RMATOptions{Scale: 10, EdgeFactor: 16, Seed: 1}, "rmat-s10-e16-seed1", "bea6ab634374db55a641d41bcf1a83a8fdf142841b50e85f415e52045e4faf83"},
		{RMATOptions{Scale: 12, EdgeFactor: 8, Seed: 3}, "rmat-s12-e8-seed3", "6c36ece6a071975163ad08b546f2e4d1d6a6490d7cab594c58f4ffaa7791a77a"},
		{RMATOptions{Scale: 12, EdgeFactor: 16, Seed: 2, Noise: 0.05}, "rmat-s12-e16-seed2", "21954b5022f1efdee673d63fe0ee5f6185b1345e0af75a6c72e22b7156cf57a0"},
	} {
		for _, p := range []int{1, 3} {
			for _, threads := range []int{1, 4} {
				opt := tc.opt
				opt.Threads = threads
				path := filepath.Join(dir, fmt.Sprintf("%s-p%d-t%d.bsn", tc.name, p, threads))
				writeRMATRanks(t, opt, RelabelOptions{}, p, path, tc.name)
				if got := sha256File(t, path); got != tc.sum {
					t.Errorf("%s, %d ranks, %d threads: SHA-256 %s; want %s (the bytes of before)", tc.name, p, threads, got, tc.sum)
				}
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestRMATFileRelabel: a relabelled generation, from any number of ranks
// and threads, is the file Save writes of Relabel(RMAT(opt)), and it loads
// back with its relabelling.
func TestRMATFileRelabel(t *testing.T) {
	dir := t.TempDir()
	opt := RMATOptions{Scale: 11, EdgeFactor: 8, Seed: 4}
	for _, rl := range []RelabelOptions{{Method: RelabelRandom, Seed: 9}, {Method: RelabelDegree}} {
		a, err := RMAT(opt)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Relabel(&Dataset{Name: "g", Adj: a}, rl)
		if err != nil {
			t.Fatal(err)
		}
		ref := filepath.Join(dir, "ref-"+rl.Method+".bsn")
		if err := Save(ref, d); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{1, 2, 5} {
			path := filepath.Join(dir, fmt.Sprintf("%s-p%d.bsn", rl.Method, p))
			o := opt
			o.Threads = p // another thread count per rank count
			writeRMATRanks(t, o, rl, p, path, "g")
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, %d ranks: the file differs from Save(Relabel(RMAT))", rl.Method, p)
			}
		}
		back, err := Load(ref, &LoadOptions{Verify: VerifyChecksums})
		if err != nil {
			t.Fatal(err)
		}
		if back.Relabel == nil || back.Relabel.Method != rl.Method || back.Relabel.Seed != rl.Seed || !slices.Equal(back.Relabel.OrigIDs, d.Relabel.OrigIDs) {
			t.Errorf("%s: loaded relabelling %+v; want method %q seed %d and the permutation", rl.Method, back.Relabel, rl.Method, rl.Seed)
		}
		back.Close()
	}
}

// exchangeFault is a BlockComm of size 2 whose exchange of R-MAT entries
// fails (err) or brings an entry of another rank's row (err nil).
type exchangeFault struct {
	rank int
	err  error
}

func (f exchangeFault) Rank() int { return f.rank }
func (f exchangeFault) Size() int { return 2 }
func (f exchangeFault) AllgatherInt64(context.Context, []int64) ([]int64, error) {
	return nil, fmt.Errorf("not called")
}
func (f exchangeFault) AllgathervInt32(context.Context, []int32, []int) ([]int32, error) {
	return nil, fmt.Errorf("not called")
}
func (f exchangeFault) AlltoallvInt64(context.Context, []int64, []int, []int64) ([]int64, error) {
	if f.err != nil {
		return nil, f.err
	}
	return []int64{1023 << 32}, nil // row 1023 of 1024: rank 1's
}

// TestRMATFileExchangeErrors: a failed exchange of R-MAT entries, or one
// that brings a row of another rank, ends the generation with an error
// naming the rank (every rank then stops: cmd's Runner aborts the job).
func TestRMATFileExchangeErrors(t *testing.T) {
	lost := errors.New("peer lost")
	for _, tc := range []struct {
		comm exchangeFault
		want string
	}{
		{exchangeFault{rank: 0, err: lost}, "exchanging R-MAT entries on rank 0 of 2: peer lost"},
		{exchangeFault{rank: 0}, "rank 0 of 2 received an R-MAT entry of row 1023, outside its rows [0, 512)"},
	} {
		_, err := GenerateRMATFile(context.Background(), RMATOptions{Scale: 10, EdgeFactor: 4, Seed: 1, Threads: 2}, RelabelOptions{}, tc.comm)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v; want %q", err, tc.want)
		}
		if tc.comm.err != nil && !errors.Is(err, lost) {
			t.Errorf("error %v does not wrap the exchange's", err)
		}
	}
}
