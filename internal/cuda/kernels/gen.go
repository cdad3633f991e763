package kernels

//go:generate ../../../scripts/ptx.sh
