package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
)

// OpenFile opens the regular file rel of sandbox uid's working directory
// for streaming, checked and confined as ReadFile is, refusing a file over
// max; the reader fails with ErrTooLarge if the file grows past max while
// it is read. It answers the size at open.
func (l *Local) OpenFile(uid, rel string, max int64) (io.ReadCloser, int64, error) {
	if _, err := l.Resolve(uid, rel); err != nil {
		return nil, 0, err
	}
	f, st, err := openBeneath(l.Workdir(uid), filepath.Clean(filepath.FromSlash(rel)))
	if err != nil {
		return nil, 0, err
	}
	if st.Size() > max {
		_ = f.Close()
		return nil, 0, fmt.Errorf("%w: %q is %d bytes, over the %d byte limit", ErrTooLarge, rel, st.Size(), max)
	}
	return &cappedFile{ReadCloser: f, left: max, rel: rel, max: max}, st.Size(), nil
}

// DigestFile answers the hex sha256 and size of rel, streaming it.
func (l *Local) DigestFile(uid, rel string, max int64) (string, int64, error) {
	rc, _, err := l.OpenFile(uid, rel, max)
	if err != nil {
		return "", 0, err
	}
	defer func() { _ = rc.Close() }() // read only: a close error loses nothing
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// cappedFile fails a read that passes max bytes.
type cappedFile struct {
	io.ReadCloser
	left     int64
	rel      string
	max      int64
	overflow [1]byte
}

func (c *cappedFile) Read(p []byte) (int, error) {
	if c.left <= 0 {
		if n, _ := c.ReadCloser.Read(c.overflow[:]); n > 0 {
			return 0, fmt.Errorf("%w: %q grew over the %d byte limit while read", ErrTooLarge, c.rel, c.max)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}
