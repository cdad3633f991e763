package hash

// Mix64 is the SplitMix64 finaliser (Steele, Lea and Flood, OOPSLA 2014): a
// bijection of the 64-bit integers whose outputs for nearby inputs are
// statistically unrelated. SplitMix64's n-th output for seed s is
// Mix64(s + n·0x9e3779b97f4a7c15).
func Mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}
