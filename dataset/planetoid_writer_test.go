package dataset

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// pickleWriter writes protocol-2 pickles with the opcodes and the object
// layout that Python 2's pickle, numpy and scipy wrote the Planetoid files
// with (checked against the real files with Python's pickletools), for
// tests that need files the shared data does not have.
type pickleWriter struct{ bytes.Buffer }

func newPickle() *pickleWriter {
	p := &pickleWriter{}
	p.Write([]byte{0x80, 2}) // PROTO 2
	return p
}

func (p *pickleWriter) global(module, name string) {
	p.WriteString("c" + module + "\n" + name + "\n")
}

func (p *pickleWriter) int(v int64) {
	switch {
	case v >= 0 && v < 1<<8:
		p.Write([]byte{'K', byte(v)})
	case v >= 0 && v < 1<<16:
		p.Write([]byte{'M', byte(v), byte(v >> 8)})
	default:
		p.WriteByte('J')
		p.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	}
}

func (p *pickleWriter) str(s string) {
	if len(s) < 256 {
		p.Write([]byte{'U', byte(len(s))})
	} else {
		p.WriteByte('T')
		p.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	}
	p.WriteString(s)
}

// ints writes a tuple of ints.
func (p *pickleWriter) ints(v ...int64) {
	p.WriteByte('(')
	for _, x := range v {
		p.int(x)
	}
	p.WriteByte('t')
}

// ndarray writes numpy's pickle of an array: _reconstruct(ndarray, (0,),
// 'b') built with (1, shape, dtype(descr, 0, 1) built with (3, order, None,
// None, None, -1, -1, 0), False, raw).
func (p *pickleWriter) ndarray(shape []int64, order, descr string, raw []byte) {
	p.global("numpy.core.multiarray", "_reconstruct")
	p.global("numpy", "ndarray")
	p.int(0)
	p.WriteByte(0x85) // TUPLE1
	p.str("b")
	p.WriteByte(0x87) // TUPLE3
	p.WriteByte('R')
	p.WriteByte('(')
	p.int(1)
	p.ints(shape...)
	p.global("numpy", "dtype")
	p.str(descr)
	p.int(0)
	p.int(1)
	p.WriteByte(0x87)
	p.WriteByte('R')
	p.WriteByte('(')
	p.int(3)
	p.str(order)
	p.WriteString("NNN")
	p.int(-1)
	p.int(-1)
	p.int(0)
	p.WriteString("tb")
	p.WriteByte(0x89) // NEWFALSE
	p.str(string(raw))
	p.WriteString("tb")
}

func int32Bytes(v []int32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func float32Bytes(v []float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// csr writes scipy's pickle of a csr_matrix with int32 indices and
// float32 data.
func (p *pickleWriter) csr(rows, cols int, indptr, indices []int32, data []float32) {
	p.global("scipy.sparse.csr", "csr_matrix")
	p.WriteString(")\x81}(") // EMPTY_TUPLE NEWOBJ EMPTY_DICT MARK
	p.str("format")
	p.str("csr")
	p.str("_shape")
	p.int(int64(rows))
	p.int(int64(cols))
	p.WriteByte(0x86) // TUPLE2
	p.str("indptr")
	p.ndarray([]int64{int64(len(indptr))}, "<", "i4", int32Bytes(indptr))
	p.str("indices")
	p.ndarray([]int64{int64(len(indices))}, "<", "i4", int32Bytes(indices))
	p.str("data")
	p.ndarray([]int64{int64(len(data))}, "<", "f4", float32Bytes(data))
	p.WriteString("ub") // SETITEMS BUILD
}

// oneHot writes a rows x classes int32 array with a 1 at labels[i] in row
// i (no 1 for a label of -1).
func (p *pickleWriter) oneHot(labels []int32, classes int) {
	v := make([]int32, len(labels)*classes)
	for i, l := range labels {
		if l >= 0 {
			v[i*classes+int(l)] = 1
		}
	}
	p.ndarray([]int64{int64(len(labels)), int64(classes)}, "<", "i4", int32Bytes(v))
}

// graph writes defaultdict(list) holding the lists adj[u] for every u.
func (p *pickleWriter) graph(adj [][]int64) {
	p.global("collections", "defaultdict")
	p.global("__builtin__", "list")
	p.WriteString("\x85R(") // TUPLE1 REDUCE MARK
	for u, l := range adj {
		p.int(int64(u))
		p.WriteString("](")
		for _, v := range l {
			p.int(v)
		}
		p.WriteByte('e') // APPENDS
	}
	p.WriteByte('u')
}

func (p *pickleWriter) bytes() []byte { return append(p.Bytes(), '.') }

// tinyPlanetoid is a Planetoid dataset small enough to check by hand
// (except for the 500 validation vertices the public split needs): 3
// features, 2 classes, 2 training vertices, allx of 503 vertices (vertex v
// has feature v%3 set to 1+v%5 and class v%2), and 3 test vertices listed as
// 506, 503, 504 (505 is a hole, as CiteSeer has 15) whose tx rows have
// features 0 (value 10), 1 (20) and 2 (30) and ty classes 1, 0, 1. The graph
// is the path 0-1-...-506 stored in one direction, plus a self loop at 0
// and a duplicate 2->3.
type tinyPlanetoid struct {
	files map[string][]byte // by extension
}

func newTinyPlanetoid() tinyPlanetoid {
	const nAll, f = 503, 3
	csrOf := func(rows int, col func(i int) int32, val func(i int) float32) []byte {
		indptr := []int32{0}
		var indices []int32
		var data []float32
		for i := range rows {
			indices, data = append(indices, col(i)), append(data, val(i))
			indptr = append(indptr, int32(len(indices)))
		}
		p := newPickle()
		p.csr(rows, f, indptr, indices, data)
		return p.bytes()
	}
	labels := func(rows int, l func(i int) int32) []byte {
		v := make([]int32, rows)
		for i := range v {
			v[i] = l(i)
		}
		p := newPickle()
		p.oneHot(v, 2)
		return p.bytes()
	}
	allCol := func(i int) int32 { return int32(i % 3) }
	allVal := func(i int) float32 { return float32(1 + i%5) }
	allLabel := func(i int) int32 { return int32(i % 2) }
	adj := make([][]int64, 507)
	for u := range 506 {
		adj[u] = []int64{int64(u + 1)}
	}
	adj[0] = append(adj[0], 0)
	adj[2] = append(adj[2], 3)
	g := newPickle()
	g.graph(adj)
	return tinyPlanetoid{files: map[string][]byte{
		"x":          csrOf(2, allCol, allVal),
		"y":          labels(2, allLabel),
		"allx":       csrOf(nAll, allCol, allVal),
		"ally":       labels(nAll, allLabel),
		"tx":         csrOf(3, func(i int) int32 { return int32(i) }, func(i int) float32 { return float32(10 * (i + 1)) }),
		"ty":         labels(3, func(i int) int32 { return []int32{1, 0, 1}[i] }),
		"graph":      g.bytes(),
		"test.index": []byte("506\n503\n504\n"),
	}}
}

// write writes the files as ind.tiny.* into dir and returns dir.
func (tp tinyPlanetoid) write(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for ext, b := range tp.files {
		if err := os.WriteFile(filepath.Join(dir, "ind.tiny."+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// with returns a copy of tp with the file of extension ext replaced.
func (tp tinyPlanetoid) with(ext string, b []byte) tinyPlanetoid {
	files := map[string][]byte{}
	for k, v := range tp.files {
		files[k] = v
	}
	files[ext] = b
	return tinyPlanetoid{files: files}
}
