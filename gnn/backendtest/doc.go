// Package backendtest is the conformance kit of gnn.Backend: the checks
// that every compute backend (the CPU one, a CUDA one) passes. Run checks
// each operation against a plain float64 reference written here;
// CheckGradients checks a model's backward pass on the backend against
// central finite differences of its loss; CheckAgainst compares whole
// forward and backward passes and inference with a reference backend.
package backendtest
