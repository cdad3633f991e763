package dataset

// Reading one block of a dataset's labels with its whole split, for the
// ranks of a distributed training run: each holds the labels of its block
// of rows (and learns those of the training vertices from their owners).

import (
	"context"
	"fmt"
	"slices"

	"github.com/bulksample/bulksample/spgemm"
)

// LabelBlock is one contiguous block of a dataset's labels, with the whole
// split, read without the graph and the features.
type LabelBlock struct {
	// Name is the dataset's name, as Load gives it.
	Name string
	// N is the number of vertices of the whole dataset; NumClasses the
	// number of classes (the largest label plus one).
	N, NumClasses int
	// Lo and Hi are the global rows of the block, [Lo, Hi).
	Lo, Hi int
	// Labels is the class of each vertex of the block (-1: unlabelled):
	// Labels[r] is vertex Lo+r's.
	Labels []int32
	// Train, Valid and Test are the whole split (every rank needs the
	// seeds and the evaluated sets).
	Train, Valid, Test []int32
}

// LoadLabelBlock reads the labels of the rows [lo, hi) = rows(n) of the
// dataset at path, where n is its number of vertices, the number of
// classes and the whole split, without the graph or the features: of a
// native file only the header, the block's labels and the split arrays are
// read (from the memory mapping, which is released before it returns); of
// a scipy .npz written by Save only the shape, labels and split members. The
// labels are checked against the number of classes and the split's ids
// against n. Other formats (gnn-benchmark and OGB files, Planetoid folders,
// edge lists, and native or scipy files with a Split or Symmetrize option,
// whose split is drawn from every label) are read whole and all but the
// block dropped: ok reports false then. rows is called once (or not at all
// on an error before n is known). The block's arrays are its own.
func LoadLabelBlock(ctx context.Context, path string, rows func(n int) (lo, hi int), opt *LoadOptions) (b *LabelBlock, ok bool, err error) {
	format, err := Detect(path)
	if err != nil {
		return nil, false, err
	}
	whole := opt != nil && (opt.Split != "" || opt.Symmetry == Symmetrize)
	var splitIndex int
	if opt != nil {
		splitIndex = opt.SplitIndex
	}
	if !whole {
		switch format {
		case FormatNative:
			b, err := nativeLabelBlock(path, rows, splitIndex)
			return b, err == nil, err
		case FormatScipyNPZ:
			if b, ok, err := scipyLabelBlock(path, rows, splitIndex); ok || err != nil {
				return b, ok, err
			}
		}
	}
	d, err := LoadContext(ctx, path, opt)
	if err != nil {
		return nil, false, err
	}
	defer d.Close()
	b, err = labelBlockOf(path, d.Name, d.NumNodes(), d.NumClasses, d.Labels, d.Train, d.Valid, d.Test, rows)
	return b, false, err
}

// nativeLabelBlock reads the label block of a native file from its mapping.
func nativeLabelBlock(path string, rows func(n int) (lo, hi int), splitIndex int) (*LabelBlock, error) {
	buf, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	defer unmap()
	// VerifyNone: the header and the array bounds only; the block and the
	// split are checked below.
	d, err := decodeNative(path, buf, VerifyNone, 1, nil)
	if err != nil {
		return nil, err
	}
	if err := d.UseSplit(splitIndex); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return labelBlockOf(path, d.Name, d.NumNodes(), d.NumClasses, d.Labels, d.Train, d.Valid, d.Test, rows)
}

// scipyLabelBlock reads the label block of a scipy-layout .npz from its
// shape, labels and split members; ok is false for another layout.
func scipyLabelBlock(path string, rows func(n int) (lo, hi int), splitIndex int) (b *LabelBlock, ok bool, err error) {
	z, ok, err := openScipy(path)
	if !ok {
		return nil, false, err
	}
	defer z.Close()
	nr, _, err := z.shape2("shape")
	if err != nil {
		return nil, false, err
	}
	d := &Dataset{Name: datasetName(path), Adj: &spgemm.CSR{Rows: nr}}
	if z.has(npzLabels) {
		if err := z.readLabels(npzLabels, d); err != nil {
			return nil, false, err
		}
	}
	if err := z.readSplit(d, npzTrain, npzValid, npzTest); err != nil {
		return nil, false, err
	}
	if err := z.readStoredSplits(d); err != nil {
		return nil, false, err
	}
	if err := d.UseSplit(splitIndex); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	b, err = labelBlockOf(path, d.Name, nr, d.NumClasses, d.Labels, d.Train, d.Valid, d.Test, rows)
	return b, err == nil, err
}

// labelBlockOf copies the block rows(n) of labels (nil: none) and the
// split, checking them.
func labelBlockOf(path, name string, n, classes int, labels, train, valid, test []int32, rows func(n int) (lo, hi int)) (*LabelBlock, error) {
	lo, hi := rows(n)
	if lo < 0 || lo > hi || hi > n {
		return nil, fmt.Errorf("%s: label block [%d, %d) outside the %d rows", path, lo, hi, n)
	}
	if labels != nil && len(labels) != n {
		return nil, fmt.Errorf("%s: %w: %d labels for %d vertices", path, ErrFormat, len(labels), n)
	}
	b := &LabelBlock{Name: name, N: n, NumClasses: classes, Lo: lo, Hi: hi}
	if labels != nil {
		b.Labels = slices.Clone(labels[lo:hi])
		for r, y := range b.Labels {
			if y < -1 || int(y) >= classes {
				return nil, fmt.Errorf("%s: %w: label of vertex %d is %d, outside [-1, %d)", path, ErrFormat, lo+r, y, classes)
			}
		}
	}
	for _, s := range []struct {
		name string
		ids  []int32
		dst  *[]int32
	}{{"train", train, &b.Train}, {"valid", valid, &b.Valid}, {"test", test, &b.Test}} {
		if err := checkIDs(s.ids, n); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, s.name, err)
		}
		*s.dst = slices.Clone(s.ids)
	}
	return b, nil
}
