package sampling

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/bulksample/bulksample/spgemm"
)

// AddRows adds the rows of m in order, each as its length, its column ids
// and its values' bits: a digest of a matrix's content that can be built
// from its row blocks, since adding the blocks of consecutive rows in order
// gives the digest of the whole matrix (`bulksample spgemm --digest`, whose
// distributed runs digest the ranks' blocks on rank 0).
func (d *Digest) AddRows(m *spgemm.CSR) {
	for i := range m.Rows {
		cols, vals := m.Row(i)
		d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(len(cols)))
		for t, c := range cols {
			d.buf = binary.LittleEndian.AppendUint32(d.buf, uint32(c))
			d.buf = binary.LittleEndian.AppendUint32(d.buf, math.Float32bits(vals[t]))
			d.flush(false)
		}
		d.flush(false)
	}
	d.flush(true)
}

// AppendRowsEncoding appends to dst the bytes that AddRows(m) hashes, so
// that a rank can send the encoding of its rows to the rank that digests
// the whole matrix (AddEncoded).
func AppendRowsEncoding(dst []byte, m *spgemm.CSR) []byte {
	buf := bytes.NewBuffer(dst)
	d := &Digest{w: buf}
	d.AddRows(m)
	return buf.Bytes()
}
