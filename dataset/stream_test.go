package dataset

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAhead(t *testing.T) {
	src := bytes.Repeat([]byte("0123456789"), 1000)
	// Whole content through small blocks and a one-byte source.
	for _, r := range []io.Reader{bytes.NewReader(src), iotest.OneByteReader(bytes.NewReader(src)), iotest.HalfReader(bytes.NewReader(src))} {
		ra := newReadAhead(r, 7, 3)
		got, err := io.ReadAll(ra)
		ra.Close()
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("read %d bytes, %v", len(got), err)
		}
	}
	// The source's error arrives after its data.
	boom := errors.New("boom")
	ra := newReadAhead(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), 2, 2)
	got, err := io.ReadAll(ra)
	ra.Close()
	if string(got) != "abc" || !errors.Is(err, boom) {
		t.Errorf("got %q, %v", got, err)
	}
	// Closing before the end stops the goroutine (Close returns).
	ra = newReadAhead(bytes.NewReader(src), 5, 2)
	ra.Read(make([]byte, 3))
	ra.Close()
}

func TestChunkPipe(t *testing.T) {
	var got []int32
	boom := errors.New("boom")
	p := newChunkPipe(2, func(src, dst []int32) error {
		got = append(got, src...)
		if dst[0] == -1 {
			return boom
		}
		return nil
	})
	for i := range int32(5) {
		src, dst := p.buffers()
		src[0], dst[0] = i, 0
		if err := p.send(1); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.wait(); err != nil || len(got) != 5 || got[4] != 4 {
		t.Fatalf("got %v, %v", got, err)
	}
	// A consumer error comes back from the next send or wait.
	src, dst := p.buffers()
	src[0], dst[0] = 9, -1
	if err := p.send(1); err != nil {
		t.Fatal(err)
	}
	if err := p.send(0); !errors.Is(err, boom) {
		t.Errorf("send after a failed chunk: %v", err)
	}
}
