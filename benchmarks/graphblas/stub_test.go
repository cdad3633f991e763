//go:build !graphblas

package graphblas

import (
	"errors"
	"testing"

	"github.com/bulksample/bulksample/spgemm"
)

func TestStubReturnsErrNotBuilt(t *testing.T) {
	if Built {
		t.Fatal("Built is true in a build without the graphblas tag")
	}
	if err := Init(2); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Init = %v; want ErrNotBuilt", err)
	}
	if _, err := Version(); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Version = %v; want ErrNotBuilt", err)
	}
	if _, err := FromCSR(&spgemm.CSR{}); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("FromCSR = %v; want ErrNotBuilt", err)
	}
	var m Matrix
	if _, err := Mul(&m, &m); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Mul = %v; want ErrNotBuilt", err)
	}
	if _, err := MulUnfinished(&m, &m); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("MulUnfinished = %v; want ErrNotBuilt", err)
	}
	if _, err := m.NVals(); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("NVals = %v; want ErrNotBuilt", err)
	}
	if _, err := m.ToCSR(); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("ToCSR = %v; want ErrNotBuilt", err)
	}
	if err := m.Free(); err != nil {
		t.Errorf("Free = %v; want nil", err)
	}
}

func TestStubView(t *testing.T) {
	var m Matrix
	called := false
	err := m.View(func(indptr, indices []uint64, data []float32) error { called = true; return nil })
	if !errors.Is(err, ErrNotBuilt) || called {
		t.Errorf("View = %v (fn called: %v); want ErrNotBuilt without calling fn", err, called)
	}
}
