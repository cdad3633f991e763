// Package testenv holds what the project's tests share about their
// environment: where the data sets of ../shared/data are, and how a test
// that needs them reacts when they are absent.
package testenv
