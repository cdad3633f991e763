// Package option is the error of an invalid option, shared by the Validate
// methods of bulksample's options structs, so that a caller that sets the
// options from elsewhere (the command line's flags) can tell which field
// was refused and name its own source of it.
//
// A Validate method returns an *Error naming its type's field (Errorf);
// a caller that nests the options in its own adds its path (Prefixed), and
// a combination that is refused names the other fields too (With). Field
// returns the path, which the command line maps to its flag.
package option
