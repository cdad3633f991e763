package main

import (
	"context"
	"errors"
)

// runGen is not written yet; its issue replaces this file.
func runGen(ctx context.Context, e *env, args []string) error {
	fs, _ := newFlags(e, "gen", "[flags]", "(not yet available)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return errors.New("not available in this build yet")
}
