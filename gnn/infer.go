package gnn

import (
	"context"
	"fmt"

	"github.com/bulksample/bulksample/featurex"
	"github.com/bulksample/bulksample/internal/par"
	"github.com/bulksample/bulksample/spgemm"
)

// DefaultInferChunkFloats bounds the temporary buffers of Predict when
// InferOptions.ChunkRows is 0: a chunk holds at most this many floats of
// aggregate (16 MiB).
const DefaultInferChunkFloats = 4 << 20

// Predict returns the predicted class (the arg-max of the logits) of every
// vertex of adj by layer-wise full-neighbour inference: layer l is applied to
// all vertices, aggregating over all their neighbours, before layer l+1, so
// each vertex's hidden state is computed once (rather than once per
// minibatch that reaches it). adj is the n x n adjacency (row v lists the
// vertices v aggregates from) and features is n x InFeatures row-major.
//
// SAGE aggregates with the row-normalised adj (the mean over all
// neighbours, weighted by adj's values), GCN with D^-1/2 (A+I) D^-1/2 formed
// by the function training uses (D holds the row lengths of A plus one with
// GCNGraphNorm, adj's values rescaled to sum to the row length: for a 0/1
// adjacency exactly Kipf and Welling's operator), Linear reads no edge. No dropout is applied.
// The rows are processed in chunks of chunkRows (0: as many as keep each
// chunk's aggregate under DefaultInferChunkFloats), so besides the two n x
// Hidden layer outputs (three for the first layer of sparse features: x·W
// too; the residual architecture keeps a third for the normalised input),
// the normalised copy of adj's values, a CSR copy of sparse features and
// O(n) vectors, the memory is bounded by the chunk size.
//
// It returns ctx's error if ctx is cancelled between chunks, and panics
// with a spgemm.ShapeError if adj or features do not conform to the model.
func (m *Model) Predict(ctx context.Context, adj *spgemm.CSR, features []float32, chunkRows int) ([]int32, error) {
	return m.PredictInput(ctx, adj, Input{Dense: features}, chunkRows)
}

// PredictInput is Predict on the features x: Dense (n x InFeatures
// row-major) or Sparse (an n x InFeatures CSR matrix, bag-of-words features
// that were never dense); Buf and Blocks are not read.
func (m *Model) PredictInput(ctx context.Context, adj *spgemm.CSR, x Input, chunkRows int) ([]int32, error) {
	pred, _, err := m.predictScored(ctx, adj, x, chunkRows, false)
	return pred, err
}

// PredictScores returns the logits of every vertex of adj (n x Classes,
// row-major), by the inference of PredictInput: the class scores whose
// arg-max Predict returns and whose softmax is the model's probability of
// each class. It costs n·Classes values of memory besides Predict's.
func (m *Model) PredictScores(ctx context.Context, adj *spgemm.CSR, x Input, chunkRows int) ([]float32, error) {
	c := m.opt.Classes
	scores := make([]float32, adj.Rows*c)
	err := m.infer(ctx, adj, x, chunkRows, func(lo, hi int, logits Buf) {
		m.be.Download(scores[lo*c:hi*c], logits.Slice(0, (hi-lo)*c))
	})
	if err != nil {
		return nil, err
	}
	return scores, nil
}

// predictScored returns every vertex's predicted class and, with score set
// and two classes, its score for class 1: logit 1 minus logit 0, in float64
// (a monotone function of the softmax probability of class 1, which does
// not round to 1 for large margins, so that ROCAUC sees no ties the model
// did not make).
func (m *Model) predictScored(ctx context.Context, adj *spgemm.CSR, x Input, chunkRows int, score bool) ([]int32, []float64, error) {
	n, c := adj.Rows, m.opt.Classes
	pred := make([]int32, n)
	var s []float64
	var host []float32
	if score && c == 2 {
		s = make([]float64, n)
	}
	err := m.infer(ctx, adj, x, chunkRows, func(lo, hi int, logits Buf) {
		m.be.ArgmaxRows(pred[lo:hi], logits, c)
		if s == nil {
			return
		}
		z := logits.Host()
		if z == nil {
			host = par.Resize(host, (hi-lo)*c)
			m.be.Download(host, logits.Slice(0, (hi-lo)*c))
			z = host
		}
		for r := range hi - lo {
			s[lo+r] = float64(z[2*r+1]) - float64(z[2*r])
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return pred, s, nil
}

// checkInferInput panics with a spgemm.ShapeError when adj is not square
// or x is not its vertices' features for the model.
func (m *Model) checkInferInput(adj *spgemm.CSR, x Input) {
	n, f := adj.Rows, m.opt.InFeatures
	ok := adj.Cols == n
	if x.Sparse != nil {
		ok = ok && x.Sparse.Rows == n && x.Sparse.Cols == f
	} else {
		ok = ok && len(x.Dense) == n*f
	}
	if !ok {
		panic(spgemm.ShapeError{Op: "gnn.Predict", ARows: adj.Rows, ACols: adj.Cols, BRows: x.rows(f), BCols: f})
	}
}

// inferAdj returns adj with the values the architecture aggregates with
// (the row-normalised adjacency for SAGE, gcnNormalize's Â for GCN; adj
// itself for Linear) and GCN's self-loop weights.
func (m *Model) inferAdj(adj *spgemm.CSR) (spgemm.CSR, []float32) {
	full := *adj
	var self []float32
	switch m.opt.Arch {
	case SAGE:
		full.Data = append([]float32(nil), adj.Data...)
		m.be.NormalizeRows(&full)
	case GCN:
		// The same operator as training's (gcnNormalize): A itself is the
		// full-neighbour block of every vertex, with its row lengths as the
		// degrees (GCNGraphNorm) or its own sums (GCNBlockNorm).
		norm := make([]float32, len(adj.Data))
		self = make([]float32, adj.Rows)
		var deg []int32
		if m.opt.GCNNorm == GCNGraphNorm {
			deg = make([]int32, adj.Rows)
			for v := range deg {
				deg[v] = int32(adj.Indptr[v+1] - adj.Indptr[v])
			}
		}
		gcnNormalize(norm, self, adj, deg, nil)
		full.Data = norm
	}
	return full, self
}

// inferFeatures returns the CSR form of x when the first layer takes the
// sparse-input path (x sparse, or dense and sparse enough), or nil and the
// dense features otherwise (a sparse x too dense for that path expanded).
func (m *Model) inferFeatures(x Input, n int) (*spgemm.CSR, []float32) {
	f := m.opt.InFeatures
	if x.Sparse != nil {
		if float64(x.Sparse.NNZ()) < m.sparseDensity*float64(n)*float64(f) {
			return x.Sparse, nil
		}
		dense := make([]float32, n*f)
		expandRows(dense, x.Sparse)
		return nil, dense
	}
	if sparseEnough(x.Dense, m.sparseDensity) {
		xs := &spgemm.CSR{}
		featurex.CompressRows(xs, x.Dense, n, f)
		return xs, nil
	}
	return nil, x.Dense
}

// infer runs full-neighbour inference (see Predict) and calls emit with the
// logits of rows [lo, hi), (hi-lo) x Classes on the backend, valid until
// emit returns, for consecutive row ranges covering all vertices.
func (m *Model) infer(ctx context.Context, adj *spgemm.CSR, x Input, chunkRows int, emit func(lo, hi int, logits Buf)) error {
	m.checkInferInput(adj, x)
	if m.blocks != nil {
		return m.inferBlocks(ctx, adj, x, chunkRows, emit)
	}
	n := adj.Rows
	be := m.be
	full, self := m.inferAdj(adj)
	var selfUp, inUp Buf
	selfB := hostView(be, self, &selfUp)
	var in, out, agg, t Buf
	defer func() { freeBufs(be, &selfUp, &inUp, &in, &out, &agg, &t) }()
	var aPtr, xPtr []int64
	// Sparse features take the sparse-input path of the first layer (see
	// forwardSparse): t = x·W_neigh (SAGE) or x·W (GCN) for all vertices
	// first, then each chunk aggregates t.
	xs, dense := m.inferFeatures(x, n)
	if xs != nil {
		l := &m.layers[0]
		if m.opt.Arch != Linear {
			t = be.Alloc(n * l.fout)
			transformSparse(be, m.opt.Arch, &l.w, l.fout, t, xs)
		}
	} else {
		in = hostView(be, dense, &inUp)
	}
	for li := range m.layers {
		l := &m.layers[li]
		lastLayer := li == len(m.layers)-1
		sparse := li == 0 && xs != nil
		chunk := inferChunk(chunkRows, l.fin, l.fout)
		if lastLayer {
			out = growBuf(be, out, min(chunk, n)*l.fout)
		} else {
			out = be.Alloc(n * l.fout)
		}
		for lo := 0; lo < n; lo += chunk {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("gnn: inference: %w", err)
			}
			hi := min(lo+chunk, n)
			rows := hi - lo
			io := layerIO{rows: rows}
			if lastLayer {
				io.out = out.Slice(0, rows*l.fout)
			} else {
				io.out = out.Slice(lo*l.fout, hi*l.fout)
			}
			// The chunk's rows of the normalised adjacency and of the sparse
			// features, sharing their column ids and values.
			var part, xsPart spgemm.CSR
			if m.opt.Arch != Linear {
				part, aPtr = rowsOf(&full, lo, hi, aPtr)
				io.adj = &part
			}
			if m.opt.Arch == GCN {
				io.self = selfB.Slice(lo, hi)
			}
			if sparse {
				xsPart, xPtr = rowsOf(xs, lo, hi, xPtr)
				io.xsDst = &xsPart
				if m.opt.Arch != Linear {
					io.t, io.tDst = t, t.Slice(lo*l.fout, hi*l.fout)
				}
				if m.opt.Arch == SAGE {
					agg = growBuf(be, agg, rows*l.fout)
					io.agg = agg
				}
				forwardSparse(be, m.opt.Arch, &l.w, l.fout, &io)
			} else {
				io.in, io.inDst = in, in.Slice(lo*l.fin, hi*l.fin)
				if m.opt.Arch != Linear {
					agg = growBuf(be, agg, rows*l.fin)
					io.agg = agg
				}
				forwardDense(be, m.opt.Arch, &l.w, l.fin, l.fout, &io)
			}
			if lastLayer {
				emit(lo, hi, io.out)
			} else {
				be.ReLU(io.out)
			}
		}
		if li > 0 {
			freeBufs(be, &in) // the layer before's output
		}
		in = out
		out = Buf{}
		if sparse {
			freeBufs(be, &t)
			t = Buf{} // only the first layer reads x·W; let it go
		}
	}
	return nil
}

// inferChunk returns the rows of an inference chunk of a layer of fin
// inputs and fout outputs: chunkRows, or with 0 as many as keep the chunk's
// buffers under DefaultInferChunkFloats.
func inferChunk(chunkRows, fin, fout int) int {
	if chunkRows > 0 {
		return chunkRows
	}
	return max(1, DefaultInferChunkFloats/max(fin, fout))
}

// rowsOf is spgemm.SliceRows by value: rows [lo, hi) of a sharing its column ids and
// values, with offsets shifted to start at 0 in buf (reused and returned).
func rowsOf(a *spgemm.CSR, lo, hi int, buf []int64) (spgemm.CSR, []int64) {
	v := a.SliceRows(lo, hi, buf)
	return *v, v.Indptr
}

// sparseEnough reports whether x has few enough nonzeros for the
// sparse-input path.
func sparseEnough(x []float32, density float64) bool {
	nnz := 0
	for _, v := range x {
		if v != 0 {
			nnz++
		}
	}
	return float64(nnz) < density*float64(len(x))
}

// Accuracy returns the fraction of the vertices ids whose prediction equals
// their label (vertices labelled -1 are skipped), and the number counted.
// It returns 0, 0 when no vertex is counted.
func Accuracy(pred, labels []int32, ids []int32) (acc float64, counted int) {
	correct := 0
	for _, v := range ids {
		if labels[v] < 0 {
			continue
		}
		counted++
		if pred[v] == labels[v] {
			correct++
		}
	}
	if counted == 0 {
		return 0, 0
	}
	return float64(correct) / float64(counted), counted
}
