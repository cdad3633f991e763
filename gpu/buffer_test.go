package gpu

import (
	"slices"
	"testing"
)

func TestBuffer(t *testing.T) {
	d := NewEmulator(EmulatorOptions{Exact: true})
	b, err := NewBuffer[float32](d, 5)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Upload([]float32{1, 2, 3, 4, 5}); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 5)
	if err := b.Download(got); err != nil || !slices.Equal(got, []float32{1, 2, 3, 4, 5}) {
		t.Fatalf("download %v, %v", got, err)
	}
	if a := b.Array(); a.Len() != 5 || a.Ptr() == 0 {
		t.Fatalf("array %d elements at %#x", a.Len(), a.Ptr())
	}
	if err := b.Upload(make([]float32, 6)); err == nil {
		t.Fatal("an upload larger than the buffer was accepted")
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err != nil {
		t.Fatalf("second Free: %v", err)
	}
	if free, total, _ := d.MemoryInfo(); free != total {
		t.Fatalf("after Free: %d of %d bytes free", free, total)
	}
}
