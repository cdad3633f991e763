package dist

import (
	"strings"
	"testing"
)

func TestLaunchedRank(t *testing.T) {
	vars := append(launchVars[:], rankVars[:]...)
	tests := []struct {
		name string
		env  map[string]string
		want int
	}{
		{"no launcher", nil, -1},
		{"Open MPI", map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "3"}, 3},
		{"Slurm", map[string]string{"SLURM_STEP_NUM_TASKS": "8", "SLURM_PROCID": "0"}, 0},
		{"PMIx", map[string]string{"PMIX_SIZE": "2", "PMIX_RANK": "1"}, 1},
		{"a rank without a job size", map[string]string{"PMI_RANK": "2"}, -1},
		{"garbled", map[string]string{"PMI_SIZE": "2", "PMI_RANK": "x"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, tt.env[v])
			}
			if got := LaunchedRank(); got != tt.want {
				t.Errorf("LaunchedRank() = %d; want %d", got, tt.want)
			}
		})
	}
}

func TestLocalRank(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		want     int
		from     string
		errorHas string
	}{
		{"no launcher", nil, -1, "", ""},
		{"Open MPI", map[string]string{"OMPI_COMM_WORLD_LOCAL_RANK": "3"}, 3, "OMPI_COMM_WORLD_LOCAL_RANK", ""},
		{"Slurm", map[string]string{"SLURM_LOCALID": "0"}, 0, "SLURM_LOCALID", ""},
		{"Open MPI before Slurm", map[string]string{"OMPI_COMM_WORLD_LOCAL_RANK": "1", "SLURM_LOCALID": "2"}, 1, "OMPI_COMM_WORLD_LOCAL_RANK", ""},
		{"garbled", map[string]string{"MPI_LOCALRANKID": "x"}, -1, "MPI_LOCALRANKID", `MPI_LOCALRANKID="x" is not a local rank`},
		{"negative", map[string]string{"MV2_COMM_WORLD_LOCAL_RANK": "-1"}, -1, "MV2_COMM_WORLD_LOCAL_RANK", "is not a local rank"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range localRankVars {
				t.Setenv(v, tt.env[v])
			}
			r, from, err := LocalRank()
			if r != tt.want || from != tt.from || (err == nil) != (tt.errorHas == "") || err != nil && !strings.Contains(err.Error(), tt.errorHas) {
				t.Errorf("LocalRank() = %d, %q, %v; want %d, %q and an error with %q", r, from, err, tt.want, tt.from, tt.errorHas)
			}
		})
	}
}
