package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DataEnv names the environment variable of the folder holding the shared
// data sets (cora.npz, citeseer.npz), which FindShared looks in first.
const DataEnv = "BULKSAMPLE_DATA"

// FindShared returns the path of the first of files (files or folders:
// Planetoid/Cora, cora.npz, citeseer.npz: the data sets DESIGN.md section 6
// names) found in $BULKSAMPLE_DATA (DataEnv) or in shared/data under the
// working directory's ancestors or the executable's (the repository sits
// next to shared/ in the project layout), or an error listing where it
// looked. Each folder is searched for every one of files before the next
// folder. A $BULKSAMPLE_DATA that is set but is not a directory is an error
// naming it.
func FindShared(files ...string) (string, error) {
	var dirs []string
	if d := os.Getenv(DataEnv); d != "" {
		if fi, err := os.Stat(d); err != nil {
			return "", fmt.Errorf("%s=%s: %w", DataEnv, d, err)
		} else if !fi.IsDir() {
			return "", fmt.Errorf("%s=%s is not a directory", DataEnv, d)
		}
		dirs = append(dirs, d)
	}
	ancestors := func(dir string) {
		for {
			dirs = append(dirs, filepath.Join(dir, "shared", "data"))
			parent := filepath.Dir(dir)
			if parent == dir {
				return
			}
			dir = parent
		}
	}
	if wd, err := os.Getwd(); err == nil {
		ancestors(wd)
	}
	if exe, err := os.Executable(); err == nil {
		ancestors(filepath.Dir(exe))
	}
	var looked []string
	for _, d := range dirs {
		for _, file := range files {
			p := filepath.Join(d, file)
			if slices.Contains(looked, p) {
				continue
			}
			looked = append(looked, p)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			} else if !errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("%s: %w", p, err)
			}
		}
	}
	return "", fmt.Errorf("%s not found; looked in %s (set %s to its directory)", strings.Join(files, " or "), strings.Join(looked, ", "), DataEnv)
}
