package distsample

import (
	"context"

	"github.com/bulksample/bulksample/dist"
	"github.com/bulksample/bulksample/sampling"
	"github.com/bulksample/bulksample/spgemm"
)

// hashedVertices is the number of vertices the local sampler of
// NewHashedDistNodeWise and NewHashedDistLayerWise is told the graph has:
// more than the bound of package sampling's dense vertex maps (4Mi
// vertices, its denseVertexMapMax), so that its vertex maps and
// accumulators are hash tables, as a rank's are on a graph above the
// bound. No seed or row past the graph's own is ever asked for.
const hashedVertices = 1<<22 + 1

// wideRows is a DistRows that reports hashedVertices vertices.
type wideRows struct{ *DistRows }

func (w wideRows) NumVertices() int { return hashedVertices }

// NewHashedDistNodeWise is NewDistNodeWise with the vertex maps of a graph
// above sampling's dense bound (hashedVertices).
func NewHashedDistNodeWise(m *dist.Matrix, mode FetchMode, opt sampling.NodeWiseOptions) (*DistNodeWise, error) {
	s, err := NewDistNodeWise(m, mode, opt)
	if err != nil {
		return nil, err
	}
	if s.nw, err = sampling.NewNodeWiseFrom(wideRows{s.rows}, opt); err != nil {
		return nil, err
	}
	return s, nil
}

// NewHashedDistLayerWise is NewDistLayerWise with the vertex maps and
// accumulators of a graph above sampling's dense bound (hashedVertices). It
// is collective over m's grid.
func NewHashedDistLayerWise(ctx context.Context, m *dist.Matrix, opt sampling.LayerWiseOptions) (*DistLayerWise, error) {
	s, err := NewDistLayerWise(ctx, m, opt)
	if err != nil {
		return nil, err
	}
	local := s.lw.Options()
	var fg *spgemm.CSR // FastGCN's column norms, as a row of the wider graph
	if opt.Method == sampling.FastGCN {
		if fg, err = distColumnSquares(ctx, s.Matrix()); err != nil {
			return nil, err
		}
		fg.Cols = hashedVertices
	}
	if s.lw, err = sampling.NewLayerWiseFrom(wideRows{s.rows}, local, fg); err != nil {
		return nil, err
	}
	return s, nil
}
