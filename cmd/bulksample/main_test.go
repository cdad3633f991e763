package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary act as bulksample itself when
// BULKSAMPLE_TEST_MAIN=1, so that tests can start it as a process (to send
// it signals, or under mpirun: the MPI build of the test binary is the MPI
// build of the command). It runs main, signal handling included.
func TestMain(m *testing.M) {
	if os.Getenv("BULKSAMPLE_TEST_MAIN") == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}
