// Package option is the error of an invalid option, shared by the Validate
// methods of bulksample's options structs, so that a caller that sets the
// options from elsewhere (the command line's flags) can tell which field
// was refused and name its own source of it.
package option

import (
	"errors"
	"fmt"
)

// Error is an invalid value of one field of an options struct. Its message
// is "pkg: Type.Field = value, problem" (sampling: SamplerOptions.Semibulk
// = 3, applies to the layer-wise methods only).
type Error struct {
	Pkg, Type string
	// Field is the field's path in Type: Semibulk, Plan.Epochs.
	Field string
	Value any
	// Problem says what is wrong or what is wanted: "want >= 0".
	Problem string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s.%s = %v, %s", e.Pkg, e.Type, e.Field, e.Value, e.Problem)
}

// Errorf returns an *Error for field of pkg's options type typ, with value
// and the problem format, args.
func Errorf(pkg, typ, field string, value any, format string, args ...any) error {
	return &Error{Pkg: pkg, Type: typ, Field: field, Value: value, Problem: fmt.Sprintf(format, args...)}
}

// Field returns the field of the first *Error in err's chain, with the
// error itself, or "", nil when there is none.
func Field(err error) (string, *Error) {
	var e *Error
	if errors.As(err, &e) {
		return e.Field, e
	}
	return "", nil
}

// Prefixed returns err with prefix added before the field of its *Error
// (the path of a nested options struct: Sampler.Fanouts), or err unchanged
// when it holds none.
func Prefixed(err error, prefix string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Field = prefix + "." + c.Field
	return &c
}
