//go:build !unix

package atomicfile

import "os"

// lockFile does nothing where flock is missing.
func lockFile(f *os.File) error { return nil }

// tryLock reports no lock taken where flock is missing, so RemoveStale
// removes nothing: it cannot tell a killed writer's file from a live one.
func tryLock(f *os.File) (bool, error) { return false, nil }

// haveFlock is false: TryLock cannot tell holders apart and always succeeds.
const haveFlock = false
