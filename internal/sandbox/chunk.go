package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ReadChunk reads at most n bytes at offset off of the regular file rel in
// sandbox uid's working directory and returns them with the file's size,
// so a reader on another host can copy a file too large for one message.
// Paths are checked, and the open confined, as ReadFile does.
func (l *Local) ReadChunk(uid, rel string, off int64, n int) ([]byte, int64, error) {
	if _, err := l.Resolve(uid, rel); err != nil {
		return nil, 0, err
	}
	if off < 0 || n < 0 {
		return nil, 0, fmt.Errorf("sandbox: bad chunk %d+%d", off, n)
	}
	f, st, err := openBeneath(l.Workdir(uid), filepath.Clean(filepath.FromSlash(rel)))
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	if off >= st.Size() {
		return nil, st.Size(), nil
	}
	buf := make([]byte, min(int64(n), st.Size()-off))
	got, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	return buf[:got], st.Size(), nil
}

// openBeneath opens the regular file rel of dir through an os.Root, which
// resolves every component beneath dir: a symlink or ".." that leads out
// answers ErrPathOutside at open time, not at an earlier check.
func openBeneath(dir, rel string) (*os.File, fs.FileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	defer func() { _ = root.Close() }() // the opened file outlives its root; nothing to flush
	// O_NONBLOCK: a FIFO a sandbox command made opens at once (and is
	// then refused as not regular) instead of blocking the reader.
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return nil, nil, fmt.Errorf("%w: %q", ErrPathOutside, rel)
		}
		return nil, nil, fmt.Errorf("%w: %q", ErrNotFound, rel)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, fmt.Errorf("%w: %q is not a regular file", ErrNotFound, rel)
	}
	return f, st, nil
}
