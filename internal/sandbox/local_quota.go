package sandbox

import (
	"context"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"
)

// quotaCheckInterval is how often a running command's working directory is
// measured against its quota.
const quotaCheckInterval = 3 * time.Second

// workdirUsage answers the disk bytes the regular files under dir occupy
// (the larger of size and allocation, so neither a sparse nor a preallocated
// file hides), and
// stops counting once over limit (a huge tree is not walked to its end).
// Entries that vanish while walked are skipped.
func workdirUsage(dir string, limit int64) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		size := info.Size()
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			size = max(size, st.Blocks*512)
		}
		if total += size; total > limit {
			return fs.SkipAll
		}
		return nil
	})
	return total
}

// overQuota reports whether work holds more than quota bytes (0: no quota).
func overQuota(work string, quota int64) bool {
	return quota > 0 && workdirUsage(work, quota) > quota
}

// watchQuota calls kill once work goes over quota while ctx lives.
func watchQuota(ctx context.Context, work string, quota int64, kill func()) {
	if quota <= 0 {
		return
	}
	t := time.NewTicker(quotaCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if overQuota(work, quota) {
				kill()
				return
			}
		}
	}
}
