package main

import (
	"context"
	"errors"
)

// runTrain is not written yet; its issue replaces this file.
func runTrain(ctx context.Context, e *env, args []string) error {
	fs, _ := newFlags(e, "train", "[flags]", "(not yet available)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return errors.New("not available in this build yet")
}
