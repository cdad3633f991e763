package gnn

import (
	"context"
	"fmt"

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
// neighbours, weighted by adj's values), GCN with D^-1/2 (A+I) D^-1/2 where D
// holds the row sums of A+I, Linear reads no edge. No dropout is applied.
// The rows are processed in chunks of chunkRows (0: as many as keep each
// chunk's aggregate under DefaultInferChunkFloats), so besides the two n x
// Hidden layer outputs the memory is bounded by the chunk size.
//
// It returns ctx's error if ctx is cancelled between chunks, and panics
// with a spgemm.ShapeError if adj or features do not conform to the model.
func (m *Model) Predict(ctx context.Context, adj *spgemm.CSR, features []float32, chunkRows int) ([]int32, error) {
	n := adj.Rows
	if adj.Cols != n || len(features) != n*m.opt.InFeatures {
		panic(spgemm.ShapeError{Op: "gnn.Predict", ARows: adj.Rows, ACols: adj.Cols, BRows: len(features) / m.opt.InFeatures, BCols: m.opt.InFeatures})
	}
	var norm, self []float32
	full := *adj
	switch m.opt.Arch {
	case SAGE:
		norm = append([]float32(nil), adj.Data...)
		full.Data = norm
		spgemm.NormalizeRows(&full, m.opt.Threads)
	case GCN:
		norm, self = make([]float32, len(adj.Data)), make([]float32, n)
		symNormalize(norm, self, adj, nil)
		full.Data = norm
	}
	pred := make([]int32, n)
	in := features
	var out, agg []float32
	var ptr []int64
	for li := range m.layers {
		l := &m.layers[li]
		lastLayer := li == len(m.layers)-1
		chunk := chunkRows
		if chunk <= 0 {
			chunk = max(1, DefaultInferChunkFloats/max(l.fin, l.fout))
		}
		if lastLayer {
			out = grow(out, min(chunk, n)*l.fout)
		} else {
			out = make([]float32, n*l.fout)
		}
		for lo := 0; lo < n; lo += chunk {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("gnn: inference: %w", err)
			}
			hi := min(lo+chunk, n)
			rows := hi - lo
			var dst []float32
			if lastLayer {
				dst = out[:rows*l.fout]
			} else {
				dst = out[lo*l.fout : hi*l.fout]
			}
			inRows := in[lo*l.fin : hi*l.fin]
			if m.opt.Arch == Linear {
				gemm(m.blas, false, false, rows, l.fout, l.fin, 1, inRows, l.w1, 0, dst)
			} else {
				// The chunk's rows of the normalised adjacency, sharing its
				// column ids and values.
				ptr = rowRange(ptr, full.Indptr, lo, hi)
				p0, p1 := full.Indptr[lo], full.Indptr[hi]
				part := spgemm.CSR{Rows: rows, Cols: n, Indptr: ptr, Indices: full.Indices[p0:p1], Data: full.Data[p0:p1]}
				agg = grow(agg, rows*l.fin)
				spgemm.MulDense(agg, &part, in, l.fin, m.opt.Threads)
				if m.opt.Arch == SAGE {
					gemm(m.blas, false, false, rows, l.fout, l.fin, 1, inRows, l.w1, 0, dst)
					gemm(m.blas, false, false, rows, l.fout, l.fin, 1, agg, l.w2, 1, dst)
				} else {
					addSelf(agg, self[lo:hi], inRows, l.fin)
					gemm(m.blas, false, false, rows, l.fout, l.fin, 1, agg, l.w1, 0, dst)
				}
			}
			addBias(dst, l.b)
			if lastLayer {
				for r := range rows {
					pred[lo+r] = int32(argmax(dst[r*l.fout : (r+1)*l.fout]))
				}
			} else {
				for e, v := range dst {
					if v < 0 {
						dst[e] = 0
					}
				}
			}
		}
		in = out
		out = nil
	}
	return pred, nil
}

// rowRange returns the row offsets of rows [lo, hi) of a CSR with offsets
// indptr, shifted to start at 0, reusing buf.
func rowRange(buf, indptr []int64, lo, hi int) []int64 {
	if cap(buf) < hi-lo+1 {
		buf = make([]int64, hi-lo+1)
	}
	buf = buf[:hi-lo+1]
	base := indptr[lo]
	for i := range buf {
		buf[i] = indptr[lo+i] - base
	}
	return buf
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
