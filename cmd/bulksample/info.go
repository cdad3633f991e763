package main

import (
	"context"
	"errors"
)

// runInfo is not written yet; its issue replaces this file.
func runInfo(ctx context.Context, e *env, args []string) error {
	fs, _ := newFlags(e, "info", "[flags]", "(not yet available)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return errors.New("not available in this build yet")
}
