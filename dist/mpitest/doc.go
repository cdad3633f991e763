// Package mpitest runs test programs under a real MPI launcher (Open MPI's
// mpirun). Tests that need one call Require: without mpirun, or in a binary
// built without the mpi tag, the test is skipped with the reason, except in
// CI (the CI variable set), where it fails: CI must run the real path.
package mpitest
