package research

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// ReapSandbox ends the row of a sandbox whose machine the orphan reaper
// destroyed (its workflow was gone): terminated, with the reason, unless
// it already ended.
func ReapSandbox(ctx context.Context, db *gorm.DB, uid string, now time.Time) error {
	return db.WithContext(ctx).Model(&Sandbox{}).Where("uid = ? AND status IN ?", uid, liveSandboxStatuses).
		Updates(map[string]any{"status": SandboxTerminated, "ended_at": now, "updated_at": now,
			"last_error": "reaped: its machine outlived its workflow, so the orphan reaper destroyed it"}).Error
}
