package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// ReapedReason is the last_error of a sandbox row the orphan reaper ended.
const ReapedReason = "reaped: its machine outlived its workflow, so the orphan reaper destroyed it"

// ReapSandbox ends the row of a sandbox whose machine the orphan reaper is
// destroying (its workflow is gone): terminated, with ReapedReason, unless
// it already ended. It returns the row and whether the reaper ended it, on
// this pass or an earlier one whose notice or destroy did not finish, so a
// retried pass tells the experiment again instead of never. A machine with
// no row (nothing to end, nobody to tell) is not reaped here and no error.
func ReapSandbox(ctx context.Context, db *gorm.DB, uid string, now time.Time) (Sandbox, bool, error) {
	db = db.WithContext(ctx)
	if err := db.Model(&Sandbox{}).Where("uid = ? AND status IN ?", uid, liveSandboxStatuses).
		Updates(map[string]any{"status": SandboxTerminated, "ended_at": now, "updated_at": now, "last_error": ReapedReason}).Error; err != nil {
		return Sandbox{}, false, err
	}
	var sb Sandbox
	if err := db.Where("uid = ?", uid).Take(&sb).Error; errors.Is(err, gorm.ErrRecordNotFound) {
		return Sandbox{}, false, nil
	} else if err != nil {
		return Sandbox{}, false, err
	}
	return sb, sb.Status == SandboxTerminated && sb.LastError == ReapedReason, nil
}
