package option

import internal "github.com/bulksample/bulksample/internal/option"

// Error is an invalid value of one field of an options struct (see the
// package doc); its message is "pkg: Type.Field = value, problem".
type Error = internal.Error

// Field returns the path of the field of the first *Error in err's chain,
// with the error itself, or "", nil when there is none.
func Field(err error) (string, *Error) { return internal.Field(err) }

// Prefixed returns err with prefix added to its *Error's path, for a
// caller that nests an options type in its own; other errors are returned
// unchanged.
func Prefixed(err error, prefix string) error { return internal.Prefixed(err, prefix) }
