package dataset

// A folder of DGL's CSVDataset (the DGL user guide, section 4.6, "Loading
// data from CSV files") holding one homogeneous graph: meta.yaml names the
// node and edge files and optionally the separator and the id columns;
// the node file has the column node_id and, as DGL writes them, label,
// train_mask, val_mask, test_mask (True/False) and feat (a vector, its
// values comma-separated inside one quoted field); the edge file has
// src_id and dst_id and optionally weight. DGL's edges are directed and
// so are this reader's (LoadOptions.Symmetry adds the reverse edges).
// Node ids that are 0..n-1 (in any order) are the vertices; other integer
// ids become vertices in the order of the node file, Dataset.SourceIDs
// keeping them, as DGL maps them. Other columns are not read and are
// named in the report; heterogeneous graphs (several node or edge files)
// and datasets of several graphs (graph_data, graph_id) are refused.
//
// The node file is read once into the features, labels and masks; the
// edge file twice, streamed through a spgemm.CSRBuilder, so a load holds
// the final arrays, a map of the node ids and two chunks of edges.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// dglMetaFile is the metadata file of a CSVDataset folder.
const dglMetaFile = "meta.yaml"

// isDGLFolder reports whether dir holds a CSVDataset's meta.yaml.
func isDGLFolder(dir string) bool { return fileExists(filepath.Join(dir, dglMetaFile)) }

// dglMeta is what meta.yaml says of a homogeneous graph.
type dglMeta struct {
	name            string
	sep             rune
	nodes, edges    string // paths
	nodeID          string // column names
	srcID, dstID    string
	nodeType        string
	edgeTypeTriplet []string
}

// readDGLMeta reads and checks dir/meta.yaml.
func readDGLMeta(dir string) (*dglMeta, error) {
	path := filepath.Join(dir, dglMetaFile)
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	root, err := parseYAML(path, src)
	if err != nil {
		return nil, err
	}
	bad := func(n *yamlNode, format string, a ...any) error {
		line := 1
		if n != nil {
			line = n.line
		}
		return fmt.Errorf("%s: line %d: %w: %s", path, line, ErrFormat, fmt.Sprintf(format, a...))
	}
	if root.kind != yamlMap {
		return nil, bad(root, "the document is %s; want a mapping (dataset_name, edge_data, node_data)", root.kindName())
	}
	str := func(m *yamlNode, key, def string) (string, error) {
		v := m.get(key)
		if v == nil {
			return def, nil
		}
		if v.kind != yamlScalar || v.null {
			return "", bad(v, "%s is %s; want a string", key, v.kindName())
		}
		return v.scalar, nil
	}
	allowed := map[string][]string{
		"":          {"version", "dataset_name", "separator", "edge_data", "node_data", "graph_data"},
		"edge_data": {"file_name", "etype", "src_id_field", "dst_id_field"},
		"node_data": {"file_name", "ntype", "node_id_field"},
	}
	known := func(m *yamlNode, where string) error {
		for _, k := range m.keys {
			if !slices.Contains(allowed[where], k) {
				in := "at the top level"
				if where != "" {
					in = "in " + where
				}
				return bad(m.values[k], "unknown key %q %s (DGL's CSVDataset knows %s)", k, in, strings.Join(allowed[where], ", "))
			}
		}
		return nil
	}
	if err := known(root, ""); err != nil {
		return nil, err
	}
	if g := root.get("graph_data"); g != nil {
		return nil, bad(g, "graph_data: a dataset of several graphs; bulksample reads one homogeneous graph")
	}
	m := &dglMeta{}
	if m.name, err = str(root, "dataset_name", filepath.Base(filepath.Clean(dir))); err != nil {
		return nil, err
	}
	sep, err := str(root, "separator", ",")
	if err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(sep) != 1 || sep == "\"" || sep == "\n" || sep == "\r" {
		return nil, bad(root.get("separator"), "separator %q: want one character other than a quote or a line break", sep)
	}
	m.sep, _ = utf8.DecodeRuneInString(sep)
	entry := func(key string) (*yamlNode, error) {
		v := root.get(key)
		switch {
		case v == nil:
			return nil, bad(root, "no %s: DGL's CSVDataset requires node_data and edge_data", key)
		case v.kind != yamlSeq || len(v.items) == 0:
			return nil, bad(v, "%s is %s; want a list of files (- file_name: ...)", key, v.kindName())
		case len(v.items) > 1:
			return nil, bad(v.items[1], "%s lists %d files: a heterogeneous graph (one file per node or edge type); bulksample reads homogeneous graphs", key, len(v.items))
		case v.items[0].kind != yamlMap:
			return nil, bad(v.items[0], "%s's entry is %s; want a mapping with file_name", key, v.items[0].kindName())
		}
		e := v.items[0]
		if err := known(e, key); err != nil {
			return nil, err
		}
		if e.get("file_name") == nil {
			return nil, bad(e, "%s's entry has no file_name", key)
		}
		return e, nil
	}
	nd, err := entry("node_data")
	if err != nil {
		return nil, err
	}
	ed, err := entry("edge_data")
	if err != nil {
		return nil, err
	}
	file := func(e *yamlNode) (string, error) {
		f, err := str(e, "file_name", "")
		if err != nil {
			return "", err
		}
		if f == "" || filepath.IsAbs(f) || strings.HasPrefix(filepath.Clean(f), "..") {
			return "", bad(e.get("file_name"), "file_name %q: want a file in the dataset's folder", f)
		}
		return filepath.Join(dir, f), nil
	}
	if m.nodes, err = file(nd); err != nil {
		return nil, err
	}
	if m.edges, err = file(ed); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		e        *yamlNode
		key, def string
		dst      *string
	}{{nd, "node_id_field", "node_id", &m.nodeID}, {nd, "ntype", "", &m.nodeType}, {ed, "src_id_field", "src_id", &m.srcID}, {ed, "dst_id_field", "dst_id", &m.dstID}} {
		if *f.dst, err = str(f.e, f.key, f.def); err != nil {
			return nil, err
		}
	}
	if et := ed.get("etype"); et != nil {
		if et.kind != yamlSeq || len(et.items) != 3 {
			return nil, bad(et, "etype is %s; want [source type, relation, destination type]", et.kindName())
		}
		for _, it := range et.items {
			m.edgeTypeTriplet = append(m.edgeTypeTriplet, it.scalar)
		}
		src, dst := m.edgeTypeTriplet[0], m.edgeTypeTriplet[2]
		if src != dst || m.nodeType != "" && src != m.nodeType {
			return nil, bad(et, "etype %v joins node types other than the node file's %q: a heterogeneous graph", m.edgeTypeTriplet, m.nodeType)
		}
	}
	return m, nil
}

// dglNodes is what the node file gives.
type dglNodes struct {
	d     *Dataset // without Adj
	n     int
	index map[int64]int32 // node id -> vertex, when the ids are not 0..n-1
}

// vertex returns the vertex of node id.
func (nd *dglNodes) vertex(id int64) (int32, bool) {
	if nd.index == nil {
		return int32(id), id >= 0 && id < int64(nd.n)
	}
	v, ok := nd.index[id]
	return v, ok
}

// loadDGLCSV reads the CSVDataset folder dir (see the file comment).
func loadDGLCSV(ctx context.Context, dir string, o *LoadOptions, chunk int64) (*Dataset, error) {
	meta, err := readDGLMeta(dir)
	if err != nil {
		return nil, err
	}
	progress(o, "reading the nodes of %s", meta.nodes)
	nodes, rep, err := readDGLNodes(ctx, meta)
	if err != nil {
		return nil, err
	}
	d := nodes.d
	d.Name, d.Report = meta.name, rep
	progress(o, "reading the edges of %s (2 passes)", meta.edges)
	if err := readDGLEdges(ctx, meta, nodes, o, chunk); err != nil {
		return nil, err
	}
	return d, nil
}

// readDGLNodes reads the node file: ids, labels, masks and features.
func readDGLNodes(ctx context.Context, meta *dglMeta) (*dglNodes, *ReadReport, error) {
	c, err := openCSV(meta.nodes, meta.sep)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	if c.column("graph_id") >= 0 {
		return nil, nil, fmt.Errorf("%s: line 1: %w: a graph_id column: a dataset of several graphs; bulksample reads one", c.name, ErrFormat)
	}
	idCol, err := c.require(meta.nodeID, "the node ids; meta.yaml's node_id_field names another column")
	if err != nil {
		return nil, nil, err
	}
	labelCol, featCol := c.column("label"), c.column("feat")
	maskCols := [3]int{c.column("train_mask"), c.column("val_mask"), c.column("test_mask")}
	rep := &ReadReport{}
	if skipped := c.others(idCol, labelCol, featCol, maskCols[0], maskCols[1], maskCols[2]); len(skipped) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("node columns not read: %s", strings.Join(skipped, ", ")))
	}
	var ids []int64
	var labels []int32
	var feats []float32
	var masks [3][]int32 // rows
	f := -1
	rows := map[int64]int32{}
	for {
		rec, err := c.next()
		if err != nil {
			return nil, nil, err
		}
		if rec == nil {
			break
		}
		r := len(ids)
		if r%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		if r >= maxDistinctIDs {
			return nil, nil, c.errf("more nodes than int32 ids allow")
		}
		id, ok := parseInt64(rec[idCol])
		if !ok {
			return nil, nil, c.errf("%s %q is not an integer (bulksample reads integer node ids)", meta.nodeID, truncate(rec[idCol], 40))
		}
		if prev, dup := rows[id]; dup {
			return nil, nil, c.errf("%s %d appears twice (rows %d and %d of the file)", meta.nodeID, id, prev+1, r+1)
		}
		rows[id] = int32(r)
		ids = append(ids, id)
		if labelCol >= 0 {
			l, ok := parseInt64(rec[labelCol])
			if !ok || l >= maxDistinctIDs {
				return nil, nil, c.errf("label %q is not a class id (an integer; negative for unlabelled)", truncate(rec[labelCol], 40))
			}
			labels = append(labels, int32(max(l, -1)))
		}
		for k, col := range maskCols {
			if col < 0 {
				continue
			}
			on, ok := parseBool(rec[col])
			if !ok {
				return nil, nil, c.errf("%s %q is not True or False", c.header[col], truncate(rec[col], 40))
			}
			if on {
				masks[k] = append(masks[k], int32(r))
			}
		}
		if featCol >= 0 {
			before := len(feats)
			if feats, err = appendVector(feats, rec[featCol]); err != nil {
				return nil, nil, c.errf("feat: %v", err)
			}
			if w := len(feats) - before; f < 0 {
				f = w
			} else if w != f {
				return nil, nil, c.errf("feat has %d values, the first row's %d", w, f)
			}
		}
	}
	n := len(ids)
	d := &Dataset{Labels: labels}
	if featCol >= 0 && n > 0 {
		d.Features, d.NumFeatures = feats, f
	}
	if labels != nil {
		d.NumClasses = numClasses(labels)
	}
	nd := &dglNodes{d: d, n: n}
	// Vertex v is node id v when the ids are 0..n-1; the rows are then
	// put in id order. Otherwise vertex r is row r, as DGL maps them.
	order := make([]int32, n) // order[v]: the row of vertex v
	identity := true
	for id, r := range rows {
		if id < 0 || id >= int64(n) {
			identity = false
			break
		}
		order[id] = r
	}
	if identity {
		permuteRows(d, order)
	} else {
		nd.index = rows
		d.SourceIDs = ids
		rep.IDs = fmt.Sprintf("renumbered: the %d %s values (not 0..%d) are vertices 0..%d in the order of %s (source ids kept)",
			n, meta.nodeID, n-1, n-1, filepath.Base(meta.nodes))
		for r := range order {
			order[r] = int32(r)
		}
	}
	inv := make([]int32, n) // inv[row]: the vertex of the row
	for v, r := range order {
		inv[r] = int32(v)
	}
	for k, dst := range []*[]int32{&d.Train, &d.Valid, &d.Test} {
		if maskCols[k] < 0 {
			continue
		}
		ids := masks[k]
		for i, r := range ids {
			ids[i] = inv[r]
		}
		slices.Sort(ids)
		*dst = append([]int32{}, ids...)
	}
	return nd, rep, nil
}

// permuteRows reorders d's per-node arrays so that vertex v gets row
// order[v], when order is not the identity.
func permuteRows(d *Dataset, order []int32) {
	sorted := true
	for v, r := range order {
		if int(r) != v {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	if d.Labels != nil {
		l := make([]int32, len(order))
		for v, r := range order {
			l[v] = d.Labels[r]
		}
		d.Labels = l
	}
	if f := d.NumFeatures; d.Features != nil {
		x := make([]float32, len(d.Features))
		for v, r := range order {
			copy(x[v*f:(v+1)*f], d.Features[int(r)*f:(int(r)+1)*f])
		}
		d.Features = x
	}
}

// appendVector appends the numbers of a vector field as DGL writes one
// ("0.5, 0.25,1" inside one quoted field; brackets allowed) to dst.
func appendVector(dst []float32, s string) ([]float32, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		v, err := strconv.ParseFloat(part, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", truncate(part, 40))
		}
		dst = append(dst, float32(v))
	}
	return dst, nil
}

// readDGLEdges reads the edge file twice into d's adjacency: edge src ->
// dst is entry (dst, src).
func readDGLEdges(ctx context.Context, meta *dglMeta, nodes *dglNodes, o *LoadOptions, chunk int64) error {
	d, rep := nodes.d, nodes.d.Report
	c, err := openCSV(meta.edges, meta.sep)
	if err != nil {
		return err
	}
	defer c.Close()
	if c.column("graph_id") >= 0 {
		return fmt.Errorf("%s: line 1: %w: a graph_id column: a dataset of several graphs; bulksample reads one", c.name, ErrFormat)
	}
	spec := csvEdgeSpec{weight: c.column("weight"), n: nodes.n, vertex: nodes.vertex,
		what: fmt.Sprintf("a %s of %s", meta.nodeID, filepath.Base(meta.nodes)), threads: o.Threads, chunk: chunk}
	if spec.src, err = c.require(meta.srcID, "the edges' sources; meta.yaml's src_id_field names another column"); err != nil {
		return err
	}
	if spec.dst, err = c.require(meta.dstID, "the edges' destinations; meta.yaml's dst_id_field names another column"); err != nil {
		return err
	}
	if skipped := c.others(spec.src, spec.dst, spec.weight); len(skipped) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("edge columns not read: %s", strings.Join(skipped, ", ")))
	}
	if o.Symmetry == Symmetrize {
		rep.Reversed, rep.ReversedWhy = true, "symmetrize was asked for"
	}
	d.Weighted = spec.weight >= 0
	d.Adj, err = c.readEdges(ctx, spec, rep)
	return err
}
