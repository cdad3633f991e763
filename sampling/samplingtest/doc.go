// Package samplingtest is the conformance kit of package sampling's seams and
// the fixtures of the packages above it: random blocks, minibatches and
// features with a given seed, for the checks that a sampler, a gnn backend
// or a distributed implementation runs on its own implementation.
package samplingtest
