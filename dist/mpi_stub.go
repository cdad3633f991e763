//go:build !mpi

package dist

// This file is the twin of mpi.go for builds without the mpi tag: the same
// API, every call an error saying why.

// MPIAvailable reports whether this binary was built with MPI.
const MPIAvailable = false

// NewMPIWorld returns ErrNoMPI: this binary was built without the mpi tag.
func NewMPIWorld(opt Options) (Comm, error) { return nil, ErrNoMPI }
