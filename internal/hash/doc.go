// Package hash holds the integer mixing function that bulksample's
// counter-based random numbers are built on, so that the dataset generators
// (which may import only spgemm) and the samplers share one implementation.
package hash
