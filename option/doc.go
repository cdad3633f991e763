// Package option is the error of an invalid option, shared by the Validate
// methods of bulksample's options structs, so that a caller that sets the
// options from elsewhere (the command line's flags, a config file) can tell
// which field was refused and name its own source of it.
//
// # Convention
//
// Every options type of the module has one exported Validate method, and
// the functions and constructors that take the type call it (a GPU and a
// CPU constructor alike) rather than restating its checks. Validate
// returns nil or an error whose chain holds an *Error for the first bad
// field; other errors of the module (files, ranks, data) are not *Error.
// A caller reads the field with errors.As:
//
//	var oe *option.Error
//	if errors.As(err, &oe) {
//		path, _ := option.Field(err) // "Sampler.Fanouts": the field's path in the caller's options
//		fmt.Println(path, oe.Value, oe.Problem)
//	}
//
// A Validate method returns an *Error naming its type's field (Errorf);
// a caller that nests the options in its own adds its path (Prefixed), and
// a combination that is refused names the other fields too (With). Field
// returns the path, which the command line maps to its flag.
//
// The packages of the module build these errors with internal/option,
// which every layer may import; this package is the public name of the
// same type (Error is an alias, so errors.As matches either name) and of
// the functions a caller reads or nests it with. No package of the module
// imports it.
package option
