// Package option is the implementation of the error of an invalid option
// that every Validate of the module returns; it imports nothing of
// bulksample, so that every layer may use it. Callers outside the module
// name the type through the public package
// github.com/bulksample/bulksample/option, whose Error is this package's.
package option
