package dist

import "testing"

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
