// Package featurextest is the conformance kit of featurex.Store: the checks
// that every implementation (the local store, the distributed one, a cache)
// passes, with the local gather as the reference.
package featurextest
