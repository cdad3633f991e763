//go:build !cuda

package gpu

// Without the cuda tag there are no libraries: a Device is the emulator,
// and the backend's products run on bulksample's kernels.

func loadLibs(d *Device) (string, error) { return "", ErrNoLibrary }

func libGemm(p *pipe, tA, tB bool, m, n, k int, alpha float32, a, b mem, beta float32, c mem) bool {
	return false
}

func libSpMM(p *pipe, trans bool, a devCSR, x mem, cols int, dst mem, fb *fallbacks, st *spmmState) bool {
	return false
}

// spmmState is empty without the libraries.
type spmmState struct{}

func (s *spmmState) free(ex executor) error { return nil }
