//go:build cuda

package gpu

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bulksample/bulksample/internal/cuda"
)

// TestCusparseSpMMRefusals checks which errors of an SpMM leave the product
// to bulksample's kernel: every cuSPARSE status and a library without SpMM
// (recorded, per direction, in Fallbacks), but no error of the driver.
func TestCusparseSpMMRefusals(t *testing.T) {
	sp := func(code int, name string) error {
		return fmt.Errorf("gpu: SpMM: %w", &cuda.Error{Lib: "cusparse", Call: "cusparseSpMM", Code: code, Name: name})
	}
	for _, c := range []struct {
		err     error
		refused bool
	}{
		{nil, false},
		{sp(10, "CUSPARSE_STATUS_NOT_SUPPORTED"), true},
		{sp(3, "CUSPARSE_STATUS_INVALID_VALUE"), true},
		{sp(11, "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES"), true},
		{sp(7, "CUSPARSE_STATUS_INTERNAL_ERROR"), true},
		{fmt.Errorf("cuda: lib lacks cusparseSpMM, so SpMM is unavailable: %w", cuda.ErrUnavailable), true},
		{&cuda.Error{Lib: "cuda", Call: "cuMemAlloc_v2", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY"}, false},
		{&cuda.Error{Lib: "cuda", Call: "cuCtxSynchronize", Code: 700, Name: "CUDA_ERROR_ILLEGAL_ADDRESS"}, false},
	} {
		for _, trans := range []bool{false, true} {
			var fb fallbacks
			got := fb.refused(trans, c.err)
			b := &Backend{fb: fb}
			if got != c.refused || len(b.Fallbacks()) != map[bool]int{false: 0, true: 1}[c.refused] {
				t.Errorf("transposed=%v, %v: refused %v with fallbacks %q; want refused %v", trans, c.err, got, b.Fallbacks(), c.refused)
			}
			if got && !strings.Contains(b.Fallbacks()[0], map[bool]string{false: "nn_spmm ", true: "nn_spmmt"}[trans]) {
				t.Errorf("transposed=%v: fallback %q names the wrong kernel", trans, b.Fallbacks()[0])
			}
		}
	}
}
