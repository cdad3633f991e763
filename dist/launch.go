package dist

import (
	"errors"
	"os"
	"strconv"
)

// ErrNoMPI is returned by NewMPIWorld in a binary built without the mpi
// build tag.
var ErrNoMPI = errors.New("dist: built without MPI support (the mpi build tag): rebuild with `make build` on a machine with mpicc (Debian: libopenmpi-dev)")

// launchVars are the environment variables by which MPI launchers and
// Slurm give a process its job size.
var launchVars = [...]string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"}

// LaunchedSize returns the number of ranks the launcher (mpirun, mpiexec,
// srun) started, read from its environment variables, or 0 when the
// process was not started by one. A process with a launched size above 1
// must join the MPI job: the MPI-less build then refuses to run rather
// than pretend to be one rank of many.
func LaunchedSize() int {
	for _, v := range launchVars {
		if n, err := strconv.Atoi(os.Getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// rankVars are the environment variables by which MPI launchers and Slurm
// give a process its rank in the job.
var rankVars = [...]string{"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}

// LaunchedRank returns this process's rank in the job the launcher started,
// read from its environment variables, or -1 when the process was not
// started by one. It is known before MPI is initialised: a command uses it
// to have one rank, not all of them, report a bad command line.
func LaunchedRank() int {
	if LaunchedSize() == 0 {
		return -1
	}
	for _, v := range rankVars {
		if r, err := strconv.Atoi(os.Getenv(v)); err == nil && r >= 0 {
			return r
		}
	}
	return -1
}
