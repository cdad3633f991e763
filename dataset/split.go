package dataset

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Split specifications, as LoadOptions.Split and the CLI's --split take them:
//
//	""                   keep the split stored in the file; if it has none and
//	                     the dataset has labels, use the default: "planetoid"
//	                     for graphs under 100,000 nodes, else "random:0.1,0.05,0.85"
//	"none"               no split (Train, Valid and Test empty)
//	"planetoid"          the Planetoid protocol: 20 nodes per class for
//	                     training, then 500 for validation and 1,000 for test
//	"planetoid:T,V,E"    T per class, V validation, E test nodes
//	"random:a,b,c"       fractions a, b, c (sum <= 1) of the labelled nodes of
//	                     every class (stratified); of all nodes when unlabelled
//
// Nodes are drawn in a random order that is a pure function of the seed, so
// a split is reproducible; only labelled nodes (label >= 0) are drawn when the
// dataset has labels. Planetoid takes fewer validation and test nodes when
// fewer remain.
const (
	SplitNone      = "none"
	SplitPlanetoid = "planetoid"
	SplitRandom    = "random"
)

// defaultSplitCutoff is the node count from which the default split is the
// stratified random one instead of Planetoid's fixed counts.
const defaultSplitCutoff = 100_000

// splitSpec is a parsed split specification.
type splitSpec struct {
	kind      string
	perClass  int        // planetoid
	nValid    int        // planetoid
	nTest     int        // planetoid
	fractions [3]float64 // random
}

// parseSplit parses a split specification (see SplitPlanetoid).
func parseSplit(s string) (splitSpec, error) {
	kind, args, hasArgs := strings.Cut(s, ":")
	bad := func(format string, a ...any) (splitSpec, error) {
		return splitSpec{}, fmt.Errorf("split %q: %s", s, fmt.Sprintf(format, a...))
	}
	var parts []string
	if hasArgs {
		parts = strings.Split(args, ",")
		if len(parts) != 3 {
			return bad("want 3 comma-separated numbers after ':'")
		}
	}
	switch kind {
	case SplitNone:
		if hasArgs {
			return bad("none takes no arguments")
		}
		return splitSpec{kind: SplitNone}, nil
	case SplitPlanetoid:
		sp := splitSpec{kind: SplitPlanetoid, perClass: 20, nValid: 500, nTest: 1000}
		if hasArgs {
			dst := []*int{&sp.perClass, &sp.nValid, &sp.nTest}
			for i, p := range parts {
				v, err := strconv.Atoi(strings.TrimSpace(p))
				if err != nil || v < 0 {
					return bad("%q is not a non-negative integer", p)
				}
				*dst[i] = v
			}
		}
		return sp, nil
	case SplitRandom:
		if !hasArgs {
			return bad("random needs fractions, e.g. random:0.1,0.05,0.85")
		}
		sp := splitSpec{kind: SplitRandom}
		sum := 0.0
		for i, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || !(v >= 0 && v <= 1) {
				return bad("%q is not a fraction in [0, 1]", p)
			}
			sp.fractions[i] = v
			sum += v
		}
		if sum > 1+1e-9 {
			return bad("fractions sum to %g > 1", sum)
		}
		return sp, nil
	}
	return bad("unknown kind %q (want none, planetoid or random)", kind)
}

// defaultSplit returns the split used for a labelled dataset without one.
func defaultSplit(n int) string {
	if n < defaultSplitCutoff {
		return SplitPlanetoid
	}
	return "random:0.1,0.05,0.85"
}

// applySplit sets d's split from the specification spec and seed; "" keeps
// the stored split or applies the default for labelled datasets.
func applySplit(d *Dataset, spec string, seed uint64) error {
	if spec == "" {
		if d.Train != nil || d.Valid != nil || d.Test != nil || d.Labels == nil {
			return nil
		}
		spec = defaultSplit(d.NumNodes())
	}
	sp, err := parseSplit(spec)
	if err != nil {
		return err
	}
	d.Train, d.Valid, d.Test = nil, nil, nil
	switch sp.kind {
	case SplitNone:
		return nil
	case SplitPlanetoid:
		if d.Labels == nil {
			return fmt.Errorf("split %q: the planetoid split needs labels", spec)
		}
		d.Train, d.Valid, d.Test = planetoidSplit(d.Labels, d.NumClasses, sp.perClass, sp.nValid, sp.nTest, seed)
	case SplitRandom:
		d.Train, d.Valid, d.Test = randomSplit(d.Labels, d.NumNodes(), d.NumClasses, sp.fractions, seed)
	}
	return nil
}

// shuffled returns the ids with label >= 0 (all of [0, n) if labels is nil)
// in the random order of seed: sorted by a hash of (seed, id).
func shuffled(labels []int32, n int, seed uint64) []int32 {
	type keyed struct {
		key uint64
		id  int32
	}
	ks := make([]keyed, 0, n)
	for v := range n {
		if labels == nil || labels[v] >= 0 {
			ks = append(ks, keyed{hash3(seed, streamSplit, uint64(v)), int32(v)})
		}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	ids := make([]int32, len(ks))
	for i, k := range ks {
		ids[i] = k.id
	}
	return ids
}

// planetoidSplit takes perClass nodes of every class for training, then the
// next nValid and nTest nodes of the shuffled order for validation and test.
func planetoidSplit(labels []int32, classes, perClass, nValid, nTest int, seed uint64) (train, valid, test []int32) {
	order := shuffled(labels, len(labels), seed)
	taken := make([]int, classes)
	train, valid, test = []int32{}, []int32{}, []int32{}
	var rest []int32
	for _, v := range order {
		if c := labels[v]; taken[c] < perClass {
			taken[c]++
			train = append(train, v)
			continue
		}
		rest = append(rest, v)
	}
	nValid = min(nValid, len(rest))
	valid = append(valid, rest[:nValid]...)
	rest = rest[nValid:]
	test = append(test, rest[:min(nTest, len(rest))]...)
	slices.Sort(train)
	slices.Sort(valid)
	slices.Sort(test)
	return train, valid, test
}

// randomSplit splits the labelled nodes of every class (all nodes when
// labels is nil) by the fractions f, rounding each share down, in the
// shuffled order of seed.
func randomSplit(labels []int32, n, classes int, f [3]float64, seed uint64) (train, valid, test []int32) {
	order := shuffled(labels, n, seed)
	groups := [][]int32{order}
	if labels != nil {
		groups = make([][]int32, classes)
		for _, v := range order {
			groups[labels[v]] = append(groups[labels[v]], v)
		}
	}
	train, valid, test = []int32{}, []int32{}, []int32{}
	for _, g := range groups {
		a := int(f[0]*float64(len(g)) + 1e-9)
		b := int(f[1]*float64(len(g)) + 1e-9)
		c := min(int(f[2]*float64(len(g))+1e-9), len(g)-a-b)
		train = append(train, g[:a]...)
		valid = append(valid, g[a:a+b]...)
		test = append(test, g[a+b:a+b+c]...)
	}
	slices.Sort(train)
	slices.Sort(valid)
	slices.Sort(test)
	return train, valid, test
}
