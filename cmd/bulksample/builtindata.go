package main

import (
	"path/filepath"
	"strings"

	"github.com/bulksample/bulksample/dataset"
)

// builtinDataFiles returns where `train --data NAME` looks for the dataset
// called name (cora or citeseer) in each data folder of findSharedData, in
// order (within one folder the first that exists wins; an earlier folder
// wins over a later one): PyG's download folder (Planetoid(root, 'Cora')
// puts Kipf and Welling's files in root/Cora/raw), with the public split;
// then the gnn-benchmark file, which has no split (the default
// Planetoid-protocol split is drawn).
func builtinDataFiles(name string) []string {
	switch name {
	case "cora":
		return []string{filepath.Join("Planetoid", "Cora"), "cora.npz"}
	case "citeseer":
		return []string{filepath.Join("Planetoid", "CiteSeer"), "citeseer.npz"}
	}
	return nil
}

// findBuiltinData returns the path of the dataset called name (cora or
// citeseer), or an error listing where it looked.
func findBuiltinData(name string) (string, error) {
	return findSharedData(builtinDataFiles(name)...)
}

// builtinDataHelp describes for `train --help` where --data cora and
// citeseer are looked up.
const builtinDataHelp = "cora and citeseer are Planetoid/Cora and Planetoid/CiteSeer (PyTorch Geometric's download folder\n" +
	"of Kipf and Welling's files, with the public split: 140 or 120 training, 500 valid and 1,000 test\n" +
	"vertices), else cora.npz and citeseer.npz (the gnn-benchmark files, which draw a split), looked up in\n" +
	"$" + dataEnv + " when it is set, then in shared/data in the working directory and each of its\n" +
	"parents, then in shared/data beside the executable and each of its parents.\n"

// Preset names that the choice of a default refers to.
const (
	presetPlanetoidSAGE = "planetoid-sage"
	presetNone          = "none" // --preset none: no preset, not even the default one
)

// choosePreset returns the preset a run applies given --preset's value
// (preset) and --data's (data), and whether it is defaultPreset's choice.
func choosePreset(preset, data string) (name string, byDefault bool) {
	switch preset {
	case presetNone:
		return "", false
	case "":
		p := defaultPreset(data)
		return p, p != ""
	}
	return preset, false
}

// defaultPreset is the preset a run without --preset gets: planetoid-sage
// for a dataset in the Planetoid format (--data cora or citeseer when
// Planetoid/Cora or Planetoid/CiteSeer is found, or a path to such files),
// whose 140 or 120 training vertices the command's general defaults (batch
// 512, 10 epochs, no weight decay: one step per epoch, settings for large
// graphs) leave undertrained; none for anything else, the gnn-benchmark
// files included, which keep the defaults their published figures were
// measured with. --preset none keeps the general defaults everywhere.
func defaultPreset(data string) string {
	path := dataPath(data)
	if path == "" {
		return "" // synthetic, or a built-in dataset not found: loading says why
	}
	if f, err := dataset.Detect(path); err == nil && f == dataset.FormatPlanetoid {
		return presetPlanetoidSAGE
	}
	return ""
}

// dataPath returns the file or folder that --data's value data names: the
// path of cora and citeseer (findBuiltinData), data itself for a path, and
// "" for the generated synthetic dataset or a built-in one not found.
func dataPath(data string) string {
	switch name, _, _ := strings.Cut(data, ":"); name {
	case "cora", "citeseer":
		p, err := findBuiltinData(name)
		if err != nil {
			return ""
		}
		return p
	case "synthetic":
		return ""
	}
	return data
}

// presetNote says, for the header line of a run whose preset was chosen by
// default, why.
func presetNote(c *trainConfig) string {
	if !c.presetAuto {
		return ""
	}
	return " (the default for Planetoid data; --preset none for the general defaults)"
}

// splitNote says, for info's split line, where the split of a dataset in
// format comes from when it was loaded with --split spec: the Planetoid
// files' public split, unless --split drew another.
func splitNote(format, spec string) string {
	if format == dataset.FormatPlanetoid && spec == "" {
		return " (the public split of the Planetoid files)"
	}
	return ""
}
