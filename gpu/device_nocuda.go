//go:build !cuda

package gpu

// Open returns ErrNotBuilt: this binary was built without the cuda tag.
func Open(ordinal int) (*Device, error) { return nil, ErrNotBuilt }

// Built reports whether this binary was built with the cuda tag.
func Built() bool { return false }

// DeviceCount returns ErrNotBuilt: this binary was built without the cuda
// tag.
func DeviceCount() (int, error) { return 0, ErrNotBuilt }
