package research

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// StrandedSandboxes lists up to limit of a project's sandboxes still
// provisioning though created before before, oldest first: their
// workflow's start may have been lost.
func StrandedSandboxes(ctx context.Context, db *gorm.DB, projectID string, before time.Time, limit int) ([]Sandbox, error) {
	var out []Sandbox
	err := db.WithContext(ctx).Where("project_id = ? AND status = ? AND created_at < ?", projectID, SandboxProvisioning, before).
		Order("created_at").Limit(limit).Find(&out).Error
	return out, err
}

// CurrentSandbox loads the newest provisioning or running sandbox attached
// to an experiment (ErrNoRecord if none).
func CurrentSandbox(ctx context.Context, db *gorm.DB, experimentID string) (Sandbox, error) {
	var rows []Sandbox
	err := db.WithContext(ctx).Where("experiment_id = ? AND status IN ?", experimentID, []string{SandboxProvisioning, SandboxRunning}).
		Order("created_at DESC").Limit(1).Find(&rows).Error
	if err != nil {
		return Sandbox{}, err
	}
	if len(rows) == 0 {
		return Sandbox{}, ErrNoRecord
	}
	return rows[0], nil
}
