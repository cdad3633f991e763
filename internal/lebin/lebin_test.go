package lebin

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
	"testing"
)

func TestWriteReadFloat32s(t *testing.T) {
	v := []float32{0, 1.5, -2, float32(math.Inf(1)), math.SmallestNonzeroFloat32}
	var b bytes.Buffer
	if err := Write(&b, v); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 0, 4*len(v))
	for _, x := range v {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(x))
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("Write = %x; want little-endian %x", b.Bytes(), want)
	}
	got, err := ReadFloat32s(b.Bytes())
	if err != nil || !slices.Equal(got, v) {
		t.Errorf("ReadFloat32s = %v, %v; want %v", got, err, v)
	}
	if _, err := ReadFloat32s(make([]byte, 7)); err == nil {
		t.Error("ReadFloat32s of 7 bytes: no error")
	}
	if c := NewCRC32C(); c.Sum32() != crc32.Checksum(nil, crc32.MakeTable(crc32.Castagnoli)) {
		t.Error("NewCRC32C is not CRC-32C")
	}
}
