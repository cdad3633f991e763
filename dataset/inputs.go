package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Inputs returns the files that loading the dataset at path reads, in an
// order that depends only on the folder's contents: the eight files of a
// Planetoid dataset (given as its folder or as one of its files); every
// regular file under raw/ and split/ of an OGB folder (a superset of those
// its loaders read); every regular file under any other folder; and path
// itself for any other file. A command that writes files compares them
// with these, so that an output cannot destroy its own input (`train
// --data Cora --split-out Cora/raw/ind.cora.graph` replaced the graph,
// having compared the output with the folder's path only).
func Inputs(path string) ([]string, error) {
	files, _, err := inputs(path)
	return files, err
}

// What names a dataset, as inputs finds it.
type inputKind int

const (
	inputFile      inputKind = iota // a file read alone
	inputPlanetoid                  // a Planetoid dataset, by its folder or one of its files
	inputFolder                     // an OGB folder, or another folder
)

// inputs is Inputs, with what kind of dataset path names.
func inputs(path string) ([]string, inputKind, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if src, ok, err := findPlanetoid(path); err != nil {
		return nil, 0, err
	} else if ok {
		return src.files(), inputPlanetoid, nil
	}
	if !st.IsDir() {
		return []string{path}, inputFile, nil
	}
	roots := []string{path}
	if isOGBFolder(path) {
		roots = []string{filepath.Join(path, "raw"), filepath.Join(path, "split")}
	}
	var files []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist) && p == root:
				return fs.SkipDir // no split/ folder
			case err != nil:
				return err
			case d.Type().IsRegular():
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("files of %s: %w", path, err)
		}
	}
	return files, inputFolder, nil
}
