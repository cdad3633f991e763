package main

import (
	"context"
	"os"
	"testing"
)

// TestMain lets the test binary act as bulksample itself when
// BULKSAMPLE_TEST_MAIN=1, so that tests can start it under mpirun (the MPI
// build of the test binary is the MPI build of the command).
func TestMain(m *testing.M) {
	if os.Getenv("BULKSAMPLE_TEST_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr}))
	}
	os.Exit(m.Run())
}
