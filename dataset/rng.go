package dataset

import (
	"math"

	"github.com/bulksample/bulksample/internal/hash"
)

// The generators and splits draw every random number as a pure function of
// (seed, stream, counter) through the SplitMix64 finaliser (Steele, Lea and
// Flood, OOPSLA 2014; internal/hash.Mix64, shared with sampling.Stream, which
// this package may not import): a result never depends on the thread count or
// on the order in which numbers are drawn.

// Streams separate the uses of one seed.
const (
	streamSplit uint64 = iota + 1
	streamRMATEdge
	streamRMATPerm
	streamRMATNoise
	streamPPClass
	streamPPWeight
	streamPPEdge
	streamPPMean
	streamPPFeature
	streamRelabel
)

// rngKey is the hashed (seed, stream) pair: draws from one stream cost one
// mix each (Go does not hoist the key out of loops by itself).
type rngKey uint64

func newKey(seed, stream uint64) rngKey {
	return rngKey(hash.Mix64(seed + 0x9e3779b97f4a7c15 + stream*0xc2b2ae3d27d4eb4f))
}

// at returns the 64 random bits at counter i.
func (k rngKey) at(i uint64) uint64 { return hash.Mix64(uint64(k) + (i+1)*0xa0761d6478bd642f) }

// hash3 returns 64 random bits for (seed, stream, i).
func hash3(seed, stream, i uint64) uint64 { return newKey(seed, stream).at(i) }

// unit maps 64 random bits to a uniform float64 in the open interval (0, 1).
func unit(x uint64) float64 {
	return (float64(x>>11) + 0.5) * (1.0 / (1 << 53))
}

// normalPair returns two independent standard normal numbers from the bits
// at counters 2i and 2i+1 of key, by the Box-Muller transform.
func normalPair(key rngKey, i uint64) (float64, float64) {
	u1 := unit(key.at(2 * i))
	u2 := unit(key.at(2*i + 1))
	r := math.Sqrt(-2 * math.Log(u1))
	s, c := math.Sincos(2 * math.Pi * u2)
	return r * c, r * s
}
