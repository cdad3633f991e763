package sampling

import (
	"math"

	"github.com/bulksample/bulksample/internal/hash"
)

// Stream is the counter-based random stream of docs/design.md 3.3. Every draw is a
// pure function of (seed, epoch, global minibatch index, layer, vertex id,
// position): there is no state to advance, so draws can be made in any order,
// on any thread or rank, and a minibatch's sample does not depend on how
// minibatches are grouped into bulks.
//
// The hash chains the SplitMix64 finaliser (Steele, Lea and Flood, OOPSLA
// 2014) over the coordinates: each coordinate is added to the running state
// with a distinct odd constant and the state is re-mixed, so that adjacent
// coordinates give unrelated outputs. The zero value is the stream of seed 0.
type Stream struct {
	seed uint64
}

// NewStream returns the stream of seed.
func NewStream(seed uint64) Stream { return Stream{seed: seed} }

// Seed returns the stream's seed.
func (s Stream) Seed() uint64 { return s.seed }

// Odd constants that separate the coordinates; the first is 2^64/φ.
const (
	kSeed  = 0x9e3779b97f4a7c15
	kEpoch = 0xc2b2ae3d27d4eb4f
	kMB    = 0x165667b19e3779f9
	kLayer = 0xd6e8feb86659fd93
	kVert  = 0xa0761d6478bd642f
	kPos   = 0xe7037ed1a0b428db
)

// RowKey is the stream restricted to one (epoch, minibatch, layer, vertex):
// the key of one row of a selection. Draws at positions of the row cost one
// mix each.
type RowKey uint64

// Row returns the key of (epoch, minibatch, layer, vertex).
func (s Stream) Row(epoch, minibatch, layer int, vertex int32) RowKey {
	return s.layer(epoch, minibatch, layer).row(vertex)
}

// layerKey is the stream restricted to one (epoch, minibatch, layer): the
// hash chain up to the vertex, so that the rows of one layer of one
// minibatch cost one mix each.
type layerKey uint64

func (s Stream) layer(epoch, minibatch, layer int) layerKey {
	h := hash.Mix64(s.seed + kSeed)
	h = hash.Mix64(h + uint64(int64(epoch))*kEpoch)
	h = hash.Mix64(h + uint64(int64(minibatch))*kMB)
	h = hash.Mix64(h + uint64(int64(layer))*kLayer)
	return layerKey(h)
}

func (k layerKey) row(vertex int32) RowKey {
	return RowKey(hash.Mix64(uint64(k) + uint64(int64(vertex))*kVert))
}

// Uint64 returns the 64 random bits at position pos of the row.
func (k RowKey) Uint64(pos int64) uint64 {
	start, _ := k.Seq(pos)
	return hash.Mix64(start)
}

// Seq returns the counter of position pos of the row and its step:
// k.Uint64(pos+i) = hash.Mix64(start + i·step) for every i >= 0, wrapping,
// so that a vector kernel can draw many positions at once.
func (k RowKey) Seq(pos int64) (start, step uint64) {
	return uint64(k) + uint64(pos+1)*kPos, kPos
}

// Float64 returns a uniform number in the open interval (0, 1) at position
// pos of the row: 53 random bits, offset by half a unit so that 0 never
// occurs (exponential keys take its logarithm).
func (k RowKey) Float64(pos int64) float64 {
	return (float64(k.Uint64(pos)>>11) + 0.5) * (1.0 / (1 << 53))
}

// ExpKey returns -ln(u)/w for the uniform u at pos: the exponential key of
// weighted sampling without replacement. Keeping the s smallest keys of a row
// draws s entries by successive sampling proportional to w (docs/design.md 3.1).
// w must be positive.
func (k RowKey) ExpKey(pos int64, w float64) float64 {
	return -math.Log(k.Float64(pos)) / w
}

// Uint64 returns the random bits at (epoch, minibatch, layer, vertex, pos).
func (s Stream) Uint64(epoch, minibatch, layer int, vertex int32, pos int64) uint64 {
	return s.Row(epoch, minibatch, layer, vertex).Uint64(pos)
}

// Float64 returns the uniform number in (0, 1) at (epoch, minibatch, layer,
// vertex, pos).
func (s Stream) Float64(epoch, minibatch, layer int, vertex int32, pos int64) float64 {
	return s.Row(epoch, minibatch, layer, vertex).Float64(pos)
}
