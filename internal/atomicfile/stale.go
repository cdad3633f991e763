package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// A writer that is killed (kill -9, a second SIGTERM, a lost node) leaves
// its temporary file behind: ten killed checkpoint saves left 51.7 MB that
// nothing removed. A writer therefore holds an exclusive lock (lockFile:
// flock) on its temporary file from creating it (CreateTemp) until it has
// renamed it over its destination or removed it: Write closes the file,
// which releases the lock, only after the rename. The lock goes with the
// process however it ends. RemoveStale removes a temporary of this naming
// only when it can take that lock itself, so a write in progress (this
// process's or another's, a concurrent run into the same folder) keeps its
// file, up to and including its rename. CreateTemp checks, once it holds
// the lock, that its file still has its name: a RemoveStale that took the
// lock between the creation and the lock removed the file, and CreateTemp
// makes another.

// tempPattern returns the pattern of the temporary files Write makes for
// base: "." + base + ".tmp" + the digits os.CreateTemp adds.
func tempPattern(base string) *regexp.Regexp {
	return regexp.MustCompile(`^\.` + regexp.QuoteMeta(base) + `\.tmp[0-9]+$`)
}

// Stale is a temporary file RemoveStale removed.
type Stale struct {
	Path string
	Size int64
}

// RemoveStale removes, in the folder dir, the temporary files that Write
// left for the destination called base (".base.tmpNNN") and that no write
// holds: those of a writer that was killed. It returns what it removed. A
// file it cannot lock (a write in progress) or that is not a regular file
// is left alone, as is every other name. A missing dir is not an error.
func RemoveStale(dir, base string) ([]Stale, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remove stale temporaries of %s: %w", filepath.Join(dir, base), err)
	}
	pat := tempPattern(base)
	var out []Stale
	var errs []error
	for _, e := range entries {
		if !pat.MatchString(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		size, removed, err := removeIfUnlocked(path)
		if err != nil {
			errs = append(errs, err)
		} else if removed {
			out = append(out, Stale{Path: path, Size: size})
		}
	}
	return out, errors.Join(errs...)
}

// removeIfUnlocked removes path if it can take its lock, and returns its
// size. A file that vanished meanwhile is not an error.
func removeIfUnlocked(path string) (int64, bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("remove stale temporary %s: %w", path, err)
	}
	defer f.Close()
	held, err := tryLock(f)
	if err != nil {
		return 0, false, fmt.Errorf("remove stale temporary %s: %w", path, err)
	}
	if !held {
		return 0, false, nil // a write in progress
	}
	st, err := f.Stat()
	if err != nil {
		return 0, false, fmt.Errorf("remove stale temporary %s: %w", path, err)
	}
	// The name may have been removed and made again since we opened it:
	// remove it only if it is still the file we hold.
	if cur, err := os.Stat(path); err != nil || !os.SameFile(cur, st) {
		return 0, false, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, false, fmt.Errorf("remove stale temporary %s: %w", path, err)
	}
	return st.Size(), true, nil
}

// CreateTemp creates in dir a temporary file of Write's naming for the
// destination base (".base.tmpTOKEN", TempName), open for reading and
// writing with the mode 0666 less the umask, and returns it with its
// TOKEN. It holds the file's lock until the file is closed, so that
// RemoveStale leaves it alone while the caller lives: a caller that writes
// its output otherwise than through Write (several processes writing one
// file at their offsets) renames it over dir/base before closing it, or
// removes it.
func CreateTemp(dir, base string) (*os.File, uint64, error) {
	for range 100 {
		token := uint64(rand.Uint32())
		name := TempName(dir, base, token)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			os.Remove(name)
			return nil, 0, err
		}
		st, serr := f.Stat()
		cur, err := os.Stat(name)
		if serr == nil && err == nil && os.SameFile(cur, st) {
			return f, token, nil
		}
		f.Close() // removed under us: its name is gone
	}
	return nil, 0, errors.New("no free temporary name after 100 tries, or its temporary file was removed as it was made")
}

// TempName returns the name of CreateTemp's temporary file of token for
// the destination base in dir: dir/.base.tmpTOKEN.
func TempName(dir, base string, token uint64) string {
	return filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(token, 10))
}
