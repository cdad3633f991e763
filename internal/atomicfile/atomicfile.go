package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write writes path through a temporary file in the same folder, synced and
// renamed into place on success and removed on failure, so that whatever
// path held before survives a failed write; after the rename the folder is
// synced too, since the new name is durable only once its entry is on
// disk. The writes stop with ctx's error once ctx is done. A path that
// names a folder is refused before anything is written. The file gets the
// mode 0666 less the process's umask, as os.Create gives. The temporary
// file is locked (CreateTemp) from its creation until after the rename,
// and the temporaries of path that killed writers left are removed first
// (RemoveStale).
func Write(ctx context.Context, path string, write func(io.Writer) error) error {
	return writeFile(ctx, path, write, nil)
}

// writeFile is Write; beforeRename, when not nil, is called with the
// temporary file's name once it is complete and synced, just before the
// rename (a test's window into the moment a concurrent RemoveStale used to
// remove the file).
func writeFile(ctx context.Context, path string, write func(io.Writer) error, beforeRename func(tmp string)) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := Check(path); err != nil {
		return err
	}
	_, _ = RemoveStale(dir, base) // best effort: a leftover it cannot remove costs only space
	f, _, err := CreateTemp(dir, base)
	if err != nil {
		// CreateTemp's error names the temporary file, which the caller
		// never asked for: report the requested path and the folder.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: folder %s: %w", path, dir, err)
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The file stays open, and so locked, until after the rename: closing
	// it releases the lock, and a RemoveStale of another writer of path
	// could then take it and remove the finished file under its name.
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(f.Name())
		}
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, cerr)
		}
	}()
	bw := bufio.NewWriterSize(ctxWriter{ctx, f}, 1<<20)
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if beforeRename != nil {
		beforeRename(f.Name())
	}
	// The last moment to stop: after the rename the file is complete.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync folder %s: %w", path, dir, err)
	}
	return nil
}

// SyncDir flushes the folder dir's entries to stable storage: after a
// rename into dir, for writers that create their file otherwise than
// Write does.
func SyncDir(dir string) error { return syncDir(dir) }

// syncDir flushes the folder dir's entries to stable storage.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Check returns an error naming path when Write could not write it: path
// is a folder (or ends in a separator), or its folder is missing (wrapping
// fs.ErrNotExist) or not a folder (wrapping syscall.ENOTDIR). Commands call
// it before the work whose result they will write, so that a typo does not
// cost the work; Write calls it first too, since a folder at path would
// otherwise be found only by the rename, after the whole output had been
// written.
func Check(path string) error {
	_, base := filepath.Split(path)
	if st, err := os.Stat(path); base == "" || (err == nil && st.IsDir()) {
		return fmt.Errorf("%s is a folder, want a file name", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: folder %s: %w", path, dir, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("%s: %s is not a folder: %w", path, dir, syscall.ENOTDIR)
	}
	return nil
}

// ctxWriter is a writer that fails with ctx's error once ctx is done; behind
// Write's 1 MiB buffer it checks ctx once per MiB written.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
