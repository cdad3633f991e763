package dist

import (
	"errors"
	"fmt"
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

// localRankVars are the environment variables by which launchers give a
// process its index among the processes of its node: Open MPI's, Slurm's
// (srun), MPICH's (Hydra) and MVAPICH's, read in this order.
var localRankVars = [...]string{"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK"}

// LocalRank returns this process's index among the processes that the
// launcher started on its node, and the variable it was read from
// (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, MPI_LOCALRANKID or
// MV2_COMM_WORLD_LOCAL_RANK, the first one set), or -1 and "" when no
// launcher set one. A value that is not a rank (a negative or non-integer
// one) is an error naming the variable: a command that picks a node's
// device by it must not guess.
func LocalRank() (rank int, from string, err error) {
	for _, name := range localRankVars {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		r, err := strconv.Atoi(v)
		if err != nil || r < 0 {
			return -1, name, fmt.Errorf("dist: %s=%q is not a local rank", name, v)
		}
		return r, name, nil
	}
	return -1, "", nil
}
