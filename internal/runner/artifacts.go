package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"unicode/utf8"
)

// Caps on inlined artifact bodies (the contract: capped per file and per
// report; binary or over-cap files keep the digest string form).
const (
	DefaultInlineFileCap   = 64 << 10
	DefaultInlineReportCap = 256 << 10
)

// collectArtifacts digests every regular file under dir (names relative,
// slash-separated) and inlines small UTF-8 files while the report budget
// lasts, in name order so the result is deterministic.
func collectArtifacts(dir string, fileCap, reportCap int) (map[string]any, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make(map[string]any, len(names))
	budget := reportCap
	for _, name := range names {
		rec, inlined, err := artifactRecord(filepath.Join(dir, filepath.FromSlash(name)), fileCap, budget)
		if err != nil {
			return nil, err
		}
		budget -= inlined
		out[name] = rec
	}
	return out, nil
}

func artifactRecord(path string, fileCap, budget int) (any, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	h := sha256.New()
	head := make([]byte, 0, fileCap+1)
	buf := make([]byte, 32<<10)
	var size int64
	for {
		n, err := f.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			size += int64(n)
			if len(head) <= fileCap {
				head = append(head, buf[:min(n, fileCap+1-len(head))]...)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
	}
	digest := hex.EncodeToString(h.Sum(nil))
	if size > int64(fileCap) || int(size) > budget || !utf8.Valid(head) {
		return digest, 0, nil
	}
	return map[string]any{"sha256": digest, "size_bytes": size, "content": string(head)}, int(size), nil
}
