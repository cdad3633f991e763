package costmodel

import (
	"errors"
	"fmt"
)

// Hockney is the latency-bandwidth model of a collective round: a round
// that sends b bytes from a rank costs Alpha + b/Beta seconds (Alpha in
// seconds, Beta in bytes per second per rank).
type Hockney struct {
	Alpha, Beta float64
}

// Seconds returns the time of rounds rounds that send bytes bytes in all.
func (h Hockney) Seconds(rounds, bytes float64) float64 {
	return rounds*h.Alpha + bytes/h.Beta
}

// FitHockney fits t = α + b/β to the points (bytes[i], seconds[i]) by
// least squares on the seconds. It needs at least two distinct sizes and
// returns an error when the fitted slope is not positive (the time does
// not grow with the bytes: no bandwidth to speak of). The intercept may
// come out negative when the points are noisy; the caller decides whether
// that is a latency it can use.
func FitHockney(bytes, seconds []float64) (Hockney, error) {
	if len(bytes) != len(seconds) {
		return Hockney{}, fmt.Errorf("costmodel: FitHockney: %d sizes and %d times", len(bytes), len(seconds))
	}
	n := float64(len(bytes))
	var sb, st float64
	for i := range bytes {
		sb += bytes[i]
		st += seconds[i]
	}
	mb, mt := sb/n, st/n
	var sbb, sbt float64
	for i := range bytes {
		db := bytes[i] - mb
		sbb += db * db
		sbt += db * (seconds[i] - mt)
	}
	if len(bytes) < 2 || sbb == 0 {
		return Hockney{}, errors.New("costmodel: FitHockney: fewer than two distinct sizes")
	}
	slope := sbt / sbb
	if slope <= 0 {
		return Hockney{}, fmt.Errorf("costmodel: FitHockney: time falls or stays flat as the bytes grow (slope %g s/byte)", slope)
	}
	return Hockney{Alpha: mt - slope*mb, Beta: 1 / slope}, nil
}
