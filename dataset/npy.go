package dataset

// This file reads and writes numpy .npy arrays (format versions 1.0, 2.0 and
// 3.0, https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
// a magic string, a version, a header length, a Python dict literal with
// 'descr', 'fortran_order' and 'shape', then the raw elements. The reader
// converts any integer, float (incl. float16) or bool dtype to the int64,
// int32 or float32 that bulksample stores, checking every conversion, and
// never allocates more than the bytes that actually follow the header.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/bulksample/bulksample/internal/lebin"
)

// ErrFormat is wrapped by every error about malformed or unsupported input.
var ErrFormat = errors.New("dataset: bad input")

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// maxNPYHeader bounds the header dict. numpy writes fewer than 200 bytes for
// the arrays we read; the bound stops a corrupt length from allocating much.
const maxNPYHeader = 1 << 20

// npyDtype is a numpy scalar type as its descr string describes it.
type npyDtype struct {
	descr string           // as written, e.g. "<f4"
	kind  byte             // 'b' bool, 'i' signed, 'u' unsigned, 'f' float, 'U' unicode, ...
	size  int              // bytes per element
	order binary.ByteOrder // nil for one-byte types
}

// npyHeader is a parsed .npy header.
type npyHeader struct {
	dtype   npyDtype
	fortran bool
	shape   []int64
	size    int64 // bytes of magic, version, length and dict
}

// count returns the number of elements, the product of the shape (1 for a
// 0-d array).
func (h *npyHeader) count() int64 {
	n := int64(1)
	for _, d := range h.shape {
		n *= d
	}
	return n
}

// dataBytes returns count()*itemsize.
func (h *npyHeader) dataBytes() int64 { return h.count() * int64(h.dtype.size) }

// readNPYHeader reads and parses the header at the start of r. avail is the
// number of bytes r holds (-1 if unknown); a header declaring more element
// bytes than that is rejected as truncated.
func readNPYHeader(r io.Reader, avail int64) (npyHeader, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return npyHeader{}, fmt.Errorf("%w: not a .npy array: %w", ErrFormat, shortRead(err))
	}
	if string(pre[:6]) != npyMagic {
		return npyHeader{}, fmt.Errorf("%w: not a .npy array (bad magic %q)", ErrFormat, pre[:6])
	}
	major := pre[6]
	var hlen int64
	size := int64(10)
	switch major {
	case 1:
		hlen = int64(binary.LittleEndian.Uint16(pre[8:]))
	case 2, 3:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyHeader{}, fmt.Errorf("%w: .npy header: %w", ErrFormat, shortRead(err))
		}
		hlen = int64(binary.LittleEndian.Uint32([]byte{pre[8], pre[9], b[0], b[1]}))
		size = 12
	default:
		return npyHeader{}, fmt.Errorf("%w: unsupported .npy format version %d.%d", ErrFormat, major, pre[7])
	}
	if hlen > maxNPYHeader || (avail >= 0 && size+hlen > avail) {
		return npyHeader{}, fmt.Errorf("%w: .npy header length %d exceeds the data", ErrFormat, hlen)
	}
	dict := make([]byte, hlen)
	if _, err := io.ReadFull(r, dict); err != nil {
		return npyHeader{}, fmt.Errorf("%w: .npy header: %w", ErrFormat, shortRead(err))
	}
	if major < 3 && !isASCII(dict) || major == 3 && !utf8.Valid(dict) {
		return npyHeader{}, fmt.Errorf("%w: .npy header is not text", ErrFormat)
	}
	h, err := parseNPYDict(string(dict))
	if err != nil {
		return npyHeader{}, err
	}
	h.size = size + hlen
	if avail >= 0 && h.dataBytes() > avail-h.size {
		return npyHeader{}, fmt.Errorf("%w: truncated: shape %v of %s needs %d bytes, %d follow the header",
			ErrFormat, h.shape, h.dtype.descr, h.dataBytes(), avail-h.size)
	}
	return h, nil
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// shortRead turns the EOF of a short read into a message that says so.
func shortRead(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated")
	}
	return err
}

// parseNPYDict parses the header dict, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (5429,), }.
func parseNPYDict(s string) (npyHeader, error) {
	bad := func(format string, a ...any) (npyHeader, error) {
		return npyHeader{}, fmt.Errorf("%w: .npy header %q: %s", ErrFormat, truncate(s, 120), fmt.Sprintf(format, a...))
	}
	p := dictParser{s: strings.TrimSpace(s)}
	if !p.eat('{') {
		return bad("not a dict")
	}
	var h npyHeader
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok {
			return bad("expected a quoted key")
		}
		p.space()
		if !p.eat(':') {
			return bad("expected ':' after %q", key)
		}
		p.space()
		switch key {
		case "descr":
			d, ok := p.str()
			if !ok {
				return bad("descr is not a string (structured dtypes are not supported)")
			}
			dt, err := parseDtype(d)
			if err != nil {
				return npyHeader{}, err
			}
			h.dtype = dt
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return bad("fortran_order is not True or False")
			}
		case "shape":
			shape, ok := p.tuple()
			if !ok {
				return bad("shape is not a tuple of non-negative integers")
			}
			h.shape = shape
		default:
			return bad("unknown key %q", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return bad("expected ',' or '}'")
			}
			break
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return bad("missing %q", k)
		}
	}
	// Reject shapes whose byte size overflows int64.
	n := int64(1)
	for _, d := range h.shape {
		if d != 0 && n > math.MaxInt64/d/int64(max(h.dtype.size, 1)) {
			return bad("shape %v is too large", h.shape)
		}
		n *= d
	}
	return h, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// dictParser is a cursor over the few Python literals a .npy header uses.
type dictParser struct {
	s string
	i int
}

func (p *dictParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *dictParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *dictParser) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str parses a '...' or "..." string without escapes.
func (p *dictParser) str() (string, bool) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", false
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

// tuple parses (), (n,) or (n, m, ...) of non-negative integers.
func (p *dictParser) tuple() ([]int64, bool) {
	if !p.eat('(') {
		return nil, false
	}
	shape := []int64{}
	for {
		p.space()
		if p.eat(')') {
			return shape, true
		}
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		// Python 2 headers may write long integers as 5429L.
		d, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil || len(shape) >= 32 {
			return nil, false
		}
		p.i = j
		p.eat('L')
		shape = append(shape, d)
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, false
			}
			return shape, true
		}
	}
}

// parseDtype parses a simple descr such as "<f4", "|b1", "<U7", ">i8".
func parseDtype(d string) (npyDtype, error) {
	bad := func() (npyDtype, error) {
		return npyDtype{}, fmt.Errorf("%w: unsupported .npy dtype %q", ErrFormat, d)
	}
	if len(d) < 3 {
		return bad()
	}
	dt := npyDtype{descr: d, kind: d[1]}
	size, err := strconv.Atoi(d[2:])
	if err != nil || size <= 0 || size > 1<<16 {
		return bad()
	}
	switch d[0] {
	case '<':
		dt.order = binary.LittleEndian
	case '>':
		dt.order = binary.BigEndian
	case '|', '=':
		dt.order = binary.LittleEndian // '=' is native; every platform we build for is little-endian or says '<'
	default:
		return bad()
	}
	switch dt.kind {
	case 'b':
		if size != 1 {
			return bad()
		}
	case 'i', 'u':
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return bad()
		}
	case 'f':
		if size != 2 && size != 4 && size != 8 {
			return bad()
		}
	case 'U':
		size *= 4 // UCS-4 code points
	case 'S':
	default:
		return bad()
	}
	dt.size = size
	return dt, nil
}

// npyChunk is the number of elements converted per read.
const npyChunk = 1 << 15

// isNumeric reports whether the dtype is one the numeric readers convert.
func (dt npyDtype) isNumeric() bool {
	return dt.kind == 'b' || dt.kind == 'i' || dt.kind == 'u' || dt.kind == 'f'
}

// hostLittleEndian reports whether in-memory integers are little-endian.
var hostLittleEndian = lebin.HostLittleEndian

// npyConv converts element i, given as an integer (isInt) or a float, to
// T, or returns an error for a value T cannot hold.
type npyConv[T int32 | int64 | float32] func(i int64, iv int64, fv float64, isInt bool) (T, error)

// readNPYData reads h.count() elements from r into dst, converting each
// with conv. A nil conv is the plain conversion to T (toInt64, toInt32 or
// toFloat32); a non-nil one (a range check, the label rule) also sees the
// elements that were stored as T already.
func readNPYData[T int32 | int64 | float32](r io.Reader, h *npyHeader, dst []T, conv npyConv[T]) error {
	dt := h.dtype
	custom := conv != nil
	if !custom {
		conv = plainConv[T]()
	}
	if !dt.isNumeric() {
		return fmt.Errorf("%w: dtype %s is not numeric", ErrFormat, dt.descr)
	}
	if h.fortran && len(h.shape) > 1 {
		return fmt.Errorf("%w: Fortran-ordered %d-d arrays are not supported", ErrFormat, len(h.shape))
	}
	var zero T
	if int(unsafe.Sizeof(zero)) == dt.size && hostLittleEndian && dt.order == binary.LittleEndian && sameKind(zero, dt.kind) {
		// The bytes are already the Go values: read in place.
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)*dt.size)
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("%w: reading %d elements: %w", ErrFormat, len(dst), shortRead(err))
		}
		if custom {
			for i, x := range dst {
				var err error
				switch x := any(x).(type) {
				case float32:
					dst[i], err = conv(int64(i), 0, float64(x), false)
				case int32:
					dst[i], err = conv(int64(i), int64(x), 0, true)
				case int64:
					dst[i], err = conv(int64(i), x, 0, true)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	buf := make([]byte, min(npyChunk, len(dst))*dt.size)
	for off := 0; off < len(dst); off += npyChunk {
		m := min(npyChunk, len(dst)-off)
		b := buf[:m*dt.size]
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("%w: reading element %d: %w", ErrFormat, off, shortRead(err))
		}
		for j := range m {
			e := b[j*dt.size : (j+1)*dt.size]
			var iv int64
			var fv float64
			isInt := true
			switch dt.kind {
			case 'b':
				if e[0] > 1 {
					return fmt.Errorf("%w: element %d: bool byte %d", ErrFormat, off+j, e[0])
				}
				iv = int64(e[0])
			case 'i':
				switch dt.size {
				case 1:
					iv = int64(int8(e[0]))
				case 2:
					iv = int64(int16(dt.order.Uint16(e)))
				case 4:
					iv = int64(int32(dt.order.Uint32(e)))
				case 8:
					iv = int64(dt.order.Uint64(e))
				}
			case 'u':
				var u uint64
				switch dt.size {
				case 1:
					u = uint64(e[0])
				case 2:
					u = uint64(dt.order.Uint16(e))
				case 4:
					u = uint64(dt.order.Uint32(e))
				case 8:
					u = dt.order.Uint64(e)
				}
				if u > math.MaxInt64 {
					return fmt.Errorf("%w: element %d: value %d overflows int64", ErrFormat, off+j, u)
				}
				iv = int64(u)
			case 'f':
				isInt = false
				switch dt.size {
				case 2:
					fv = float64(halfToFloat32(dt.order.Uint16(e)))
				case 4:
					fv = float64(math.Float32frombits(dt.order.Uint32(e)))
				case 8:
					fv = math.Float64frombits(dt.order.Uint64(e))
				}
			}
			v, err := conv(int64(off+j), iv, fv, isInt)
			if err != nil {
				return err
			}
			dst[off+j] = v
		}
	}
	return nil
}

func sameKind(v any, kind byte) bool {
	switch v.(type) {
	case int32, int64:
		return kind == 'i'
	case float32:
		return kind == 'f'
	}
	return false
}

// halfToFloat32 converts an IEEE 754 binary16 value.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0:
		if frac == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: value = frac * 2^-24.
		f := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// plainConv returns the plain conversion to T.
func plainConv[T int32 | int64 | float32]() npyConv[T] {
	var conv any
	switch any(*new(T)).(type) {
	case int32:
		conv = npyConv[int32](toInt32)
	case int64:
		conv = npyConv[int64](toInt64)
	case float32:
		conv = npyConv[float32](toFloat32)
	}
	return conv.(npyConv[T])
}

// Element converters for readNPYData.

func toInt64(i, iv int64, fv float64, isInt bool) (int64, error) {
	if isInt {
		return iv, nil
	}
	if fv != math.Trunc(fv) || math.Abs(fv) > 1<<53 {
		return 0, fmt.Errorf("%w: element %d: %v is not an integer", ErrFormat, i, fv)
	}
	return int64(fv), nil
}

func toInt32(i, iv int64, fv float64, isInt bool) (int32, error) {
	v, err := toInt64(i, iv, fv, isInt)
	if err != nil {
		return 0, err
	}
	if v != int64(int32(v)) {
		return 0, fmt.Errorf("%w: element %d: %d overflows int32", ErrFormat, i, v)
	}
	return int32(v), nil
}

func toFloat32(_, iv int64, fv float64, isInt bool) (float32, error) {
	if isInt {
		return float32(iv), nil
	}
	return float32(fv), nil
}

// toLabel converts a class label: NaN and negative values mean unlabelled
// (-1), as in OGB's node-label arrays.
func toLabel(i, iv int64, fv float64, isInt bool) (int32, error) {
	if !isInt && math.IsNaN(fv) {
		return -1, nil
	}
	v, err := toInt32(i, iv, fv, isInt)
	if v < 0 {
		v = -1
	}
	return v, err
}

// readNPYString reads a 0-d or 1-element unicode ('U') or bytes ('S') array,
// such as scipy's 'format' member.
func readNPYString(r io.Reader, h *npyHeader) (string, error) {
	if h.count() != 1 || (h.dtype.kind != 'U' && h.dtype.kind != 'S') {
		return "", fmt.Errorf("%w: want one string, have shape %v of %s", ErrFormat, h.shape, h.dtype.descr)
	}
	b := make([]byte, h.dtype.size)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("%w: reading string: %w", ErrFormat, shortRead(err))
	}
	if h.dtype.kind == 'S' {
		return strings.TrimRight(string(b), "\x00"), nil
	}
	var sb strings.Builder
	for j := 0; j+4 <= len(b); j += 4 {
		c := rune(h.dtype.order.Uint32(b[j:]))
		if c == 0 {
			break
		}
		sb.WriteRune(c)
	}
	return sb.String(), nil
}

// npyHeaderBytes returns the version 1.0 header of an array of the given
// descr and shape, padded so that the data start on a 64-byte boundary.
func npyHeaderBytes(descr string, shape []int64) []byte {
	var sh strings.Builder
	sh.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			sh.WriteString(", ")
		}
		sh.WriteString(strconv.FormatInt(d, 10))
	}
	if len(shape) == 1 {
		sh.WriteByte(',')
	}
	sh.WriteByte(')')
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, sh.String())
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	dict += strings.Repeat(" ", pad) + "\n"
	b := make([]byte, 10, 10+len(dict))
	copy(b, npyMagic)
	b[6], b[7] = 1, 0
	binary.LittleEndian.PutUint16(b[8:], uint16(len(dict)))
	return append(b, dict...)
}

// writeNPY writes a numeric slice as a .npy array of the given shape.
func writeNPY[T int32 | int64 | float32](w io.Writer, shape []int64, v []T) error {
	var zero T
	descr := map[any]string{int32(0): "<i4", int64(0): "<i8", float32(0): "<f4"}[any(zero)]
	if _, err := w.Write(npyHeaderBytes(descr, shape)); err != nil {
		return err
	}
	return writeLE(w, v)
}

// writeLE writes v's elements little-endian (lebin.Write, shared with the
// checkpoints).
func writeLE[T int32 | int64 | float32](w io.Writer, v []T) error { return lebin.Write(w, v) }

// writeNPYString writes a 0-d unicode array holding s, as numpy writes
// np.array('csr').
func writeNPYString(w io.Writer, s string) error {
	rs := []rune(s)
	if _, err := w.Write(npyHeaderBytes(fmt.Sprintf("<U%d", len(rs)), nil)); err != nil {
		return err
	}
	b := make([]byte, 4*len(rs))
	for i, c := range rs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(c))
	}
	_, err := w.Write(b)
	return err
}

// WriteNPYFloat32 writes v as a .npy array (format version 1.0) of
// little-endian float32 of the given shape, in C order: the file numpy's
// np.save writes of such an array, which np.load reads back. The product of
// shape must be len(v).
func WriteNPYFloat32(w io.Writer, shape []int64, v []float32) error {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	if n != int64(len(v)) {
		return fmt.Errorf("dataset: WriteNPYFloat32: shape %v holds %d values, not %d", shape, n, len(v))
	}
	return writeNPY(w, shape, v)
}
