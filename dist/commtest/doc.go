// Package commtest is the conformance suite of dist.Comm: every backend
// (the in-process one, MPI under mpirun) runs the same checks of every
// collective against its definition, of the splitting of large counts and
// of the byte and message counters.
package commtest
