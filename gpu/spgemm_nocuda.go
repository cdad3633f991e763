//go:build !cuda

package gpu

// newSpProduct: cuSPARSE is bound only in the cuda build.
func newSpProduct(p *pipe, a, b devCSR, reuse bool) (spProduct, error) { return nil, ErrNoLibrary }
