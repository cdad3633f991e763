package dataset

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteSNAP writes d's graph to w as a SNAP edge list, the text that
// readEdgeList (Load of a text file) reads back to the same adjacency: a
// comment header, then one "u\tv" line per edge (a third column holds the
// weight of a weighted graph), u and v the source's ids (SourceIDs) when
// the vertices were renumbered, else 0-based vertex ids. A symmetric
// adjacency without self loops is written as SNAP writes undirected
// graphs, "# Undirected graph" and each edge once (u < v), which the reader
// symmetrises again; any other as "# Directed graph", entry (v, u) as the
// edge u -> v. It costs O(nnz) time (and, for the symmetry check, Facts')
// and a buffer.
func WriteSNAP(w io.Writer, d *Dataset) error {
	a := d.Adj
	f := Facts(a)
	undirected := f.Symmetric && f.SelfLoops == 0
	edges := a.NNZ()
	kind := "Directed graph"
	if undirected {
		kind, edges = "Undirected graph", edges/2
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "# %s: %s, written by bulksample\n# Nodes: %d Edges: %d\n# FromNodeId\tToNodeId\n", kind, d.Name, a.Rows, edges)
	id := func(v int32) int64 {
		if d.SourceIDs != nil {
			return d.SourceIDs[v]
		}
		return int64(v)
	}
	var line []byte
	for v := range a.Rows {
		cols, vals := a.Row(v)
		for p, u := range cols {
			if undirected && u >= int32(v) {
				continue
			}
			line = strconv.AppendInt(line[:0], id(u), 10)
			line = append(line, '\t')
			line = strconv.AppendInt(line, id(int32(v)), 10)
			if d.Weighted {
				line = append(line, '\t')
				line = strconv.AppendFloat(line, float64(vals[p]), 'g', -1, 32)
			}
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
