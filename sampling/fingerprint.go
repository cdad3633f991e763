package sampling

import (
	"strconv"
	"strings"
)

// Setting is one named option value of a Fingerprint.
type Setting struct{ Key, Value string }

// Fingerprint names, in a fixed order, the options that determine what a
// sampler samples (or how a dataset was prepared for training): a resumed
// training run compares the fingerprints of its sampler and data with
// those its checkpoint recorded, setting by setting, so that a resume with
// other fanouts does not continue a run it is not (train.Trainer). Keys are
// the command line's flag names: sampler, fanout, ladies-matrix.
type Fingerprint []Setting

// String returns the settings as key=value, separated by commas.
func (f Fingerprint) String() string {
	parts := make([]string, len(f))
	for i, s := range f {
		parts[i] = s.Key + "=" + s.Value
	}
	return strings.Join(parts, ",")
}

// Fingerprinter is implemented by samplers that describe their options as
// a Fingerprint: NodeWise, LayerWise and the distributed samplers.
type Fingerprinter interface {
	Fingerprint() Fingerprint
}

// DegreeProvider is implemented by samplers whose blocks may carry the
// graph's degree of every source vertex (Block.Deg; NodeWiseOptions'
// Degrees): ProvidesDegrees reports whether they do. GCN normalising with
// the graph's degrees needs a sampler that does.
type DegreeProvider interface {
	ProvidesDegrees() bool
}

// ints formats xs as "25,10".
func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// Fingerprint returns the sampler's method and fanouts (Fingerprinter).
func (nw *NodeWise) Fingerprint() Fingerprint { return nw.opt.Fingerprint() }

// Fingerprint returns the settings of o that a checkpoint records for a
// node-wise sampler: its method and fanouts (a device sampler of the same
// options reports the same, so that its checkpoints resume on the CPU).
func (o NodeWiseOptions) Fingerprint() Fingerprint {
	return Fingerprint{{"sampler", MethodNode}, {"fanout", ints(o.Fanouts)}}
}

// ProvidesDegrees reports whether the blocks carry the graph's degrees
// (NodeWiseOptions.Degrees; DegreeProvider).
func (nw *NodeWise) ProvidesDegrees() bool { return nw.opt.Degrees }

// Fingerprint returns the sampler's method, its column budgets and, for
// LADIES, the matrix it samples from (LayerWiseOptions.Fingerprint;
// Fingerprinter).
func (s *LayerWise) Fingerprint() Fingerprint { return s.opt.Fingerprint() }

// Fingerprint returns the settings of o that determine a layer-wise
// sampler's samples: its method, its column budgets (as given: a sampler's
// Options have the defaults filled in) and, for LADIES, the matrix it
// samples from, ladies-matrix normalized (Normalize) or raw. A sampler
// that reads rows normalised elsewhere (a distributed one) reports its
// options' fingerprint.
func (o LayerWiseOptions) Fingerprint() Fingerprint {
	f := Fingerprint{{"sampler", o.Method.String()}, {"fanout", ints(o.Budgets)}}
	if o.Method == LADIES {
		m := "raw"
		if o.Normalize {
			m = "normalized"
		}
		f = append(f, Setting{"ladies-matrix", m})
	}
	return f
}
