package dataset

import (
	"path/filepath"
)

// NameOf returns the name Load gives the dataset at path (Dataset.Name)
// without loading it: a native file's recorded name (its header alone is
// read, from a memory mapping), the dataset's name of Planetoid files, the
// folder's name of an OGB folder, meta.yaml's dataset_name of a DGL folder,
// the files' prefix of a MUSAE folder, else the file or folder name without
// extensions. It returns an error when path cannot be read or its format
// told.
func NameOf(path string) (string, error) {
	format, err := Detect(path)
	if err != nil {
		return "", err
	}
	switch format {
	case FormatNative:
		buf, unmap, err := mapFile(path)
		if err != nil {
			return "", err
		}
		defer unmap()
		d, err := decodeNative(path, buf, VerifyNone, 1, nil)
		if err != nil {
			return "", err
		}
		if d.Name != "" {
			return d.Name, nil
		}
	case FormatPlanetoid:
		if src, ok, err := findPlanetoid(path); err != nil {
			return "", err
		} else if ok {
			return src.name, nil
		}
	case FormatOGB:
		return filepath.Base(filepath.Clean(path)), nil
	case FormatDGLCSV:
		m, err := readDGLMeta(path)
		if err != nil {
			return "", err
		}
		return m.name, nil
	case FormatMUSAE:
		prefix, _ := musaeFiles(path)
		return filepath.Base(prefix), nil
	}
	return datasetName(path), nil
}
