package research

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// ReapSandbox ends the row of a sandbox whose machine the orphan reaper
// destroyed (its workflow was gone): terminated, with the reason, unless
// it already ended. It reports whether the row was still live, so ended
// here.
func ReapSandbox(ctx context.Context, db *gorm.DB, uid string, now time.Time) (bool, error) {
	res := db.WithContext(ctx).Model(&Sandbox{}).Where("uid = ? AND status IN ?", uid, liveSandboxStatuses).
		Updates(map[string]any{"status": SandboxTerminated, "ended_at": now, "updated_at": now,
			"last_error": "reaped: its machine outlived its workflow, so the orphan reaper destroyed it"})
	return res.RowsAffected == 1, res.Error
}
