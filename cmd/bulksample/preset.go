package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// trainPreset is a named set of `train` flag values: the settings behind a
// published or tested accuracy, so that the command the README prints next
// to an accuracy is short and gives that accuracy. A preset only sets flags
// the command line leaves unset, so explicit flags override its values.
type trainPreset struct {
	name  string
	about string
	flags [][2]string // flag name, value, in the order they are applied
}

// trainPresets returns the presets of `train --preset`.
func trainPresets() []trainPreset {
	return []trainPreset{
		{
			name: "kipf-gcn",
			about: "GCN as Kipf and Welling (ICLR 2017) trained it: 2 layers, hidden 16, all neighbours, every training\n" +
				"vertex in one minibatch (full-batch GCN), dropout 0.5 on the features and the hidden layer, weight\n" +
				"decay 5e-4 on the first layer only, Adam lr 0.01, 200 epochs (the Planetoid data's rows are normalised by --norm-features auto)",
			flags: [][2]string{{"model", "gcn"}, {"method", "node"}, {"fanout", "-1,-1"}, {"hidden", "16"}, {"batch", "all"},
				{"bulk", "1"}, {"epochs", "200"}, {"lr", "0.01"}, {"dropout", "0.5"}, {"weight-decay", "5e-4"}, {"weight-decay-layers", "first"}},
		},
		{
			name: "planetoid-sage",
			about: "the GraphSAGE protocol gnn/accuracy_test.go checks on Cora: 2-layer GraphSAGE-mean, hidden 64,\n" +
				"fanouts 25,10 (those of PyG's and DGL's GraphSAGE examples), batch 64 in bulks of 4, dropout 0.6,\n" +
				"weight decay 5e-4, Adam lr 0.01, 40 epochs (CiteSeer: add --epochs 100); the Planetoid data's rows are\n" +
				"normalised by --norm-features auto, as the data's preprocessing, not the preset's",
			flags: [][2]string{{"model", "sage"}, {"method", "node"}, {"fanout", "25,10"}, {"hidden", "64"}, {"batch", "64"},
				{"bulk", "4"}, {"epochs", "40"}, {"lr", "0.01"}, {"dropout", "0.6"}, {"weight-decay", "5e-4"}},
		},
	}
}

// presetNames returns the names of the presets, separated by commas.
func presetNames() string {
	var names []string
	for _, p := range trainPresets() {
		names = append(names, p.name)
	}
	return strings.Join(names, ", ")
}

// presetHelp describes every preset for `train --help`.
func presetHelp() string {
	var b strings.Builder
	for _, p := range trainPresets() {
		var vals []string
		for _, f := range p.flags {
			vals = append(vals, "--"+f[0]+" "+f[1])
		}
		fmt.Fprintf(&b, "\n  %s: %s\n    = %s", p.name, strings.ReplaceAll(p.about, "\n", "\n    "), strings.Join(vals, " "))
	}
	return b.String()
}

// applyPreset sets, in fs, the flags of the preset called name that the
// command line did not set. An empty name applies nothing. It returns an
// error for an unknown name.
func applyPreset(fs *flag.FlagSet, name string) error {
	if name == "" {
		return nil
	}
	for _, p := range trainPresets() {
		if p.name != name {
			continue
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		set["method"] = set["method"] || set["sampler"] // --sampler is --method's other name
		for _, f := range p.flags {
			if set[f[0]] {
				continue
			}
			if err := fs.Set(f[0], f[1]); err != nil {
				// The presets are ours: a value a flag refuses is a bug.
				panic(fmt.Sprintf("preset %s: --%s %s: %v", name, f[0], f[1], err))
			}
		}
		return nil
	}
	return fmt.Errorf("unknown preset (want %s)", presetNames())
}

// batchFlag is the value of --batch: a number of seeds per minibatch, or
// "all" for every training vertex in one minibatch, which runTrain turns
// into the size of the training split once the dataset is loaded.
type batchFlag struct {
	n   *int
	all *bool
}

func (b batchFlag) String() string {
	if b.all != nil && *b.all {
		return "all"
	}
	if b.n == nil {
		return "0"
	}
	return strconv.Itoa(*b.n)
}

func (b batchFlag) Set(s string) error {
	if s == "all" {
		*b.all = true
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a number or all")
	}
	*b.n, *b.all = n, false
	return nil
}

// trainCommand returns the training settings of c as flags, so that the
// header of a preset run shows what the preset set.
func trainCommand(c *trainConfig) string {
	fan := make([]string, len(c.opt.Sampler.Fanouts))
	for i, f := range c.opt.Sampler.Fanouts {
		fan[i] = strconv.Itoa(f)
	}
	o := c.opt.Trainer
	layers := "all"
	if o.Optimizer.WeightDecayFirstLayer {
		layers = "first"
	}
	batch := strconv.Itoa(o.Plan.BatchSize)
	if c.opt.BatchAll {
		batch = "all"
	}
	return fmt.Sprintf("--model %v --method %s --fanout %s --hidden %d --batch %s --bulk %d --epochs %d --lr %g --dropout %g --weight-decay %g --weight-decay-layers %s --norm-features %s",
		o.Model.Arch, samplerName(c.opt, false), strings.Join(fan, ","), o.Model.Hidden, batch, o.Plan.BulkSize, o.Plan.Epochs, o.Optimizer.Adam.LR, o.Model.Dropout, o.Optimizer.Adam.WeightDecay, layers, c.normFeatures.String())
}
