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
	// With names the other fields (paths in Type) whose values make
	// Field's invalid, for a combination that is refused: Method for
	// Semibulk with a node-wise method.
	With []string
	// Path is Field's path in the options of the caller that nested Type
	// in its own (Prefixed): Train.Plan.Epochs; "" means Field.
	Path string
	// WithPaths are With's paths there.
	WithPaths []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s.%s = %v, %s", e.Pkg, e.Type, e.Field, e.Value, e.Problem)
}

// Errorf returns an *Error for field of pkg's options type typ, with value
// and the problem format, args.
func Errorf(pkg, typ, field string, value any, format string, args ...any) error {
	return &Error{Pkg: pkg, Type: typ, Field: field, Value: value, Problem: fmt.Sprintf(format, args...)}
}

// With returns err, an *Error, with the fields that make its field
// invalid (Error.With); nil and any other error are returned unchanged.
func With(err error, fields ...string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.With = append(append([]string(nil), c.With...), fields...)
	c.WithPaths = append(append([]string(nil), c.WithPaths...), fields...)
	return &c
}

// Field returns the path of the field of the first *Error in err's chain
// (Error.Path, or its Field), with the error itself, or "", nil when there
// is none.
func Field(err error) (string, *Error) {
	var e *Error
	if errors.As(err, &e) {
		if e.Path != "" {
			return e.Path, e
		}
		return e.Field, e
	}
	return "", nil
}

// Prefixed returns err with prefix added before the paths of its *Error's
// field and With fields (a nested options struct's field: Sampler.Fanouts),
// or err unchanged when it holds none. The message is unchanged.
func Prefixed(err error, prefix string) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	path, _ := Field(e)
	c.Path = prefix + "." + path
	with := e.WithPaths
	if with == nil {
		with = e.With
	}
	c.WithPaths = make([]string, len(with))
	for i, w := range with {
		c.WithPaths[i] = prefix + "." + w
	}
	return &c
}
