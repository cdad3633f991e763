// Package gnn trains graph neural networks on bulk-sampled minibatches.
package gnn
