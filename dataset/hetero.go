package dataset

// The .npz files of the heterophilous-graphs benchmark (Platonov et al.,
// "A critical look at the evaluation of GNNs under heterophily", ICLR
// 2023: roman-empire, amazon-ratings, minesweeper, tolokers, questions),
// as PyTorch Geometric's HeterophilousGraphDataset reads them: edges (E
// x 2 integers, each undirected edge stored once), node_features (n x
// f), node_labels (n), and train_masks, val_masks and test_masks (k x n
// booleans: the k official splits, 10 in every file). PyG adds the
// reverse edges (to_undirected), and so does this reader by default,
// dropping self loops as every symmetrisation here does; all k splits are
// kept (Dataset.Splits) and LoadOptions.SplitIndex picks the one in use.
//
// The edges are streamed twice through a spgemm.CSRBuilder, a chunk at a
// time, so a load holds the final CSR and one chunk of the edge array.

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/spgemm"
)

// Members of a heterophilous-graphs file.
const (
	heteroEdges    = "edges"
	heteroFeatures = "node_features"
	heteroLabels   = "node_labels"
)

var heteroMasks = [3]string{"train_masks", "val_masks", "test_masks"}

// isHeterophilous reports whether z has the members of the layout.
func (z *npzArchive) isHeterophilous() bool {
	return z.has(heteroEdges) && z.has(heteroFeatures) && z.has(heteroLabels)
}

// readHeterophilous reads z in the heterophilous-graphs layout. sym
// chooses the reverse edges (SymmetryDefault and Symmetrize: added);
// chunk bounds the edges held at once.
func readHeterophilous(ctx context.Context, z *npzArchive, sym Symmetry, threads int, chunk int64) (*Dataset, error) {
	fh, _, err := z.header(heteroFeatures)
	if err != nil {
		return nil, err
	}
	if len(fh.shape) != 2 {
		return nil, z.errf(heteroFeatures, fmt.Errorf("%w: shape %v, want (nodes, features)", ErrFormat, fh.shape))
	}
	n := fh.shape[0]
	if n > maxDistinctIDs {
		return nil, z.errf(heteroFeatures, fmt.Errorf("%w: %d nodes exceed int32 ids", ErrFormat, n))
	}
	eh, _, err := z.header(heteroEdges)
	if err != nil {
		return nil, err
	}
	if len(eh.shape) != 2 || eh.shape[1] != 2 {
		return nil, z.errf(heteroEdges, fmt.Errorf("%w: shape %v, want (E, 2): one row per edge", ErrFormat, eh.shape))
	}
	m := eh.shape[0]
	k, err := z.maskCount(int(n))
	if err != nil {
		return nil, err
	}
	if err := z.rowsAre(heteroLabels, int(n)); err != nil {
		return nil, err
	}
	rep := &ReadReport{Edges: m}
	if sym != AsStored {
		why := "PyG's HeterophilousGraphDataset makes the graph undirected"
		if sym == Symmetrize {
			why = "symmetrize was asked for"
		}
		rep.Reversed, rep.ReversedWhy, rep.SelfLoopsDropped = true, why, true
	}
	opt := &spgemm.COOOptions{Duplicates: spgemm.DropDuplicates, Symmetrize: rep.Reversed, DropSelfLoops: rep.Reversed, Threads: threads}
	adj, err := buildCSR(z.name, int(n), opt, func(pass int, emit func(rows, cols []int32, vals []float32) error) error {
		loops, err := z.readEdgeRows(ctx, heteroEdges, n, chunk, func(src, dst []int32) error { return emit(dst, src, nil) })
		rep.SelfLoops = loops
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.merged(m, adj)
	d := &Dataset{Adj: adj, Report: rep}
	if d.Features, _, err = readNumeric[float32](z, heteroFeatures, 2, nil); err != nil {
		return nil, err
	}
	d.NumFeatures = int(fh.shape[1])
	if err := z.readLabels(heteroLabels, d); err != nil {
		return nil, err
	}
	if k > 0 {
		if err := z.readMasks(d, k); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// maskCount returns the number k of splits the mask members hold, from
// their headers: each k x n (or n, one split), the same k for all three;
// 0 when the file has none of them.
func (z *npzArchive) maskCount(n int) (int, error) {
	k := -1
	for _, key := range heteroMasks {
		h, ok, err := z.header(key)
		if err != nil {
			return 0, err
		}
		if !ok {
			if k > 0 {
				return 0, fmt.Errorf("%s: %w: missing array %q beside %q", z.name, ErrFormat, key, heteroMasks[0])
			}
			k = 0
			continue
		}
		var c int
		switch {
		case len(h.shape) == 1 && h.shape[0] == int64(n):
			c = 1
		case len(h.shape) == 2 && h.shape[1] == int64(n) && h.shape[0] > 0 && h.shape[0] <= 1024:
			c = int(h.shape[0])
		default:
			return 0, z.errf(key, fmt.Errorf("%w: shape %v, want (splits, %d) or (%d,): a boolean mask per split", ErrFormat, h.shape, n, n))
		}
		if k == 0 {
			return 0, fmt.Errorf("%s: %w: array %q without %q", z.name, ErrFormat, key, heteroMasks[0])
		}
		if k > 0 && c != k {
			return 0, fmt.Errorf("%s: %w: arrays %q and %q hold %d and %d splits", z.name, ErrFormat, heteroMasks[0], key, k, c)
		}
		k = c
	}
	return max(k, 0), nil
}

// readMasks reads the k splits' masks into d: Splits when k > 1, and
// split 0 as Train, Valid and Test.
func (z *npzArchive) readMasks(d *Dataset, k int) error {
	n := d.NumNodes()
	splits := make([]Split, k)
	for j, key := range heteroMasks {
		mask, _, err := readNumeric(z, key, 0, func(i, iv int64, fv float64, isInt bool) (int32, error) {
			if !isInt || iv < 0 || iv > 1 {
				return 0, fmt.Errorf("%w: element %d: a mask holds 0 or 1 (False or True)", ErrFormat, i)
			}
			return int32(iv), nil
		})
		if err != nil {
			return err
		}
		for s := range k {
			var ids []int32
			for v, on := range mask[s*n : (s+1)*n] {
				if on != 0 {
					ids = append(ids, int32(v))
				}
			}
			if ids == nil {
				ids = []int32{}
			}
			switch j {
			case 0:
				splits[s].Train = ids
			case 1:
				splits[s].Valid = ids
			case 2:
				splits[s].Test = ids
			}
		}
	}
	d.Train, d.Valid, d.Test = splits[0].Train, splits[0].Valid, splits[0].Test
	if k > 1 {
		d.Splits = splits
	}
	return nil
}

// readEdgeRows reads member key of z, an E x 2 integer array of node ids
// in [0, n) (one edge per row: source, destination), and calls fn with
// chunks of at most chunk edges, in order, on another goroutine while it
// reads the next. It returns the number of self loops.
func (z *npzArchive) readEdgeRows(ctx context.Context, key string, n, chunk int64, fn func(src, dst []int32) error) (loops int64, err error) {
	rc, h, err := z.open(key)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	m := h.shape[0]
	c := max(min(m, chunk), 1)
	pipe := newChunkPipe(c, fn)
	defer func() {
		if werr := pipe.wait(); err == nil && werr != nil {
			err = z.errf(key, werr)
		}
	}()
	pairs := make([]int32, 2*c)
	for off := int64(0); off < m; off += c {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k := min(c, m-off)
		base := 2 * off
		err := readNPYData(rc, &h, pairs[:2*k], func(i, iv int64, fv float64, isInt bool) (int32, error) {
			v, err := toInt64(base+i, iv, fv, isInt)
			if err == nil && uint64(v) >= uint64(n) {
				err = fmt.Errorf("%w: edge %d: node id %d outside [0, %d)", ErrFormat, (base+i)/2, v, n)
			}
			return int32(v), err
		})
		if err != nil {
			return 0, z.errf(key, err)
		}
		src, dst := pipe.buffers()
		for i := range k {
			src[i], dst[i] = pairs[2*i], pairs[2*i+1]
			if src[i] == dst[i] {
				loops++
			}
		}
		if err := pipe.send(int(k)); err != nil {
			return 0, z.errf(key, err)
		}
	}
	if err := pipe.wait(); err != nil {
		return 0, z.errf(key, err)
	}
	return loops, z.finish(key, rc)
}
