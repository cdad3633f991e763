// Package dist owns distribution over ranks (docs/design.md section 4):
// the communicator interface Comm and its two backends (MPI through a thin
// cgo binding behind the mpi build tag, and an in-process backend of
// goroutine ranks for tests), the (p/c) x c process Grid, row-distributed
// matrices (Matrix, the 1.5D layout) with their RowExchange (rows fetched
// by global id from their owners in the process column), the 1.5D product
// Mul15D and the symmetric normalisation SymNormalizeWithSelfLoops of a
// row-distributed matrix, 2D-distributed matrices on a square grid
// (Matrix2D) and their general product by Sparse SUMMA, the per-phase
// communication counters, and Run, which runs a rank's work and ends the
// job when it fails.
//
// The distributed operations are short loops of exchanges around package
// spgemm's local kernels: no arithmetic lives here (SUMMA and Mul15D call
// spgemm.Mul, SymNormalizeWithSelfLoops spgemm's sums and scaling), so that
// a distributed result has the bits of the single-process one.
//
// # Conventions
//
// Buffers are slices of one of the element types []byte, []int32, []int64,
// []float32 and []float64; MPI moves them with the fixed-width types
// MPI_BYTE, MPI_INT32_T, MPI_INT64_T, MPI_FLOAT and MPI_DOUBLE. Counts and
// displacements are in elements of the buffer's type. Every v-collective
// takes exact counts: the protocol of this package is "counts first, then
// the payload" (Exchange), and no value ever marks an empty slot.
//
// Global vertex ids are named gid, rows of a rank's block lrow; the Grid is
// the only place that maps one to the other (Grid.Locate) and the only place
// that computes rank numbers from grid coordinates.
//
// # Counting
//
// Every call counts, under the Phase it is given, the bytes this rank sends
// to other ranks and the number of non-empty messages, as if the collective
// were done by direct sends (Alltoallv: the counts of the other ranks;
// Allgatherv, Allreduce: the buffer to each other rank; Bcast: the buffer to
// each other rank, at the root). Data a rank keeps for itself is free.
// Counts above the backend's MaxCount elements are split into several
// messages, each counted. Stats returns one rank's counters; ReduceStats
// sums and maximises them over the ranks of a Comm.
//
// # Errors and failure
//
// Calls return errors naming the call and the rank; a caller bug (a buffer
// of an unsupported type, counts that do not match the buffer) is an error
// too, since the other ranks must be told. An error on one rank must end the
// job: Run (or Fail) prints "rank R: <error>" and calls Comm.Abort, which
// under MPI is MPI_Abort (the launcher kills every rank) and in-process
// makes every pending and later call of every rank return ErrAborted; an
// error that every rank returns alike (Agreed) ends no job. In-process, the
// ranks of a collective that did not make the same call (another
// collective, element type, operator, root or count) all fail with
// ErrMismatch, where MPI would deadlock or corrupt data.
//
// A Comm is used by one goroutine at a time; every rank of a communicator
// makes the same sequence of collective calls.
package dist
