package research

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// liveSandboxStatuses hold a machine (or may still): a quota counts them.
var liveSandboxStatuses = []string{SandboxProvisioning, SandboxRunning, SandboxCleanupPending}

// cleanupCounted is how long a cleanup_pending sandbox still counts
// against its project's quota after its last change: its workflow keeps
// retrying the teardown that long at most (SandboxHostGiveUp) before it
// gives up on a host that never came back, which must not hold the
// project's quota forever.
const cleanupCounted = 24 * time.Hour

// SandboxQuota caps what one project's live sandboxes hold together.
type SandboxQuota struct {
	// MaxLive is the most live sandboxes (provisioning, running,
	// cleanup_pending).
	MaxLive int
	// MaxGPUs is the most GPUs they hold together.
	MaxGPUs int
}

// SandboxUsage is what a project's live sandboxes hold (a cleanup_pending
// one for cleanupCounted after its last change).
type SandboxUsage struct {
	Live int
	GPUs int
}

// CreateSandboxWithinQuota inserts s in provisioning unless the project's
// live sandboxes with s would pass q, which answers a conflict naming the
// cap and inserts nothing. Concurrent requests of one project are
// serialized (a PostgreSQL transaction lock on the project; SQLite
// serializes writers), so two of them cannot both take the last slot.
func CreateSandboxWithinQuota(ctx context.Context, db *gorm.DB, s Sandbox, q SandboxQuota) error {
	s.Status = SandboxProvisioning
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if tx.Name() == "postgres" {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtext(?))", "research_sandboxes/"+s.ProjectID).Error; err != nil {
				return err
			}
		}
		use, err := sandboxUsage(tx, s.ProjectID)
		if err != nil {
			return err
		}
		if use.Live+1 > q.MaxLive {
			return quotaError(fmt.Sprintf("project %s already has %d live sandboxes, the most this deployment allows "+
				"(GATEHOUSE_SANDBOX_MAX_LIVE_PER_PROJECT=%d); release one first", s.ProjectID, use.Live, q.MaxLive), use, q)
		}
		if s.GPU > 0 && use.GPUs+s.GPU > q.MaxGPUs {
			return quotaError(fmt.Sprintf("project %s's live sandboxes hold %d GPUs; %d more would pass the cap of %d "+
				"(GATEHOUSE_SANDBOX_MAX_GPUS_PER_PROJECT); release a GPU sandbox first", s.ProjectID, use.GPUs, s.GPU, q.MaxGPUs), use, q)
		}
		return tx.Create(&s).Error
	})
}

// SandboxUsageOf answers what project's live sandboxes hold.
func SandboxUsageOf(ctx context.Context, db *gorm.DB, projectID string) (SandboxUsage, error) {
	return sandboxUsage(db.WithContext(ctx), projectID)
}

func sandboxUsage(tx *gorm.DB, projectID string) (SandboxUsage, error) {
	var row struct {
		Live int `gorm:"column:live"`
		GPUs int `gorm:"column:gpus"`
	}
	err := tx.Model(&Sandbox{}).Select("COUNT(*) AS live, COALESCE(SUM(gpu), 0) AS gpus").
		Where("project_id = ? AND (status IN ? OR status = ? AND updated_at > ?)", projectID,
			[]string{SandboxProvisioning, SandboxRunning}, SandboxCleanupPending, time.Now().UTC().Add(-cleanupCounted)).Scan(&row).Error
	return SandboxUsage{Live: row.Live, GPUs: row.GPUs}, err
}

func quotaError(msg string, use SandboxUsage, q SandboxQuota) *Error {
	return &Error{Code: CodeConflict, Field: "/additional", Message: msg, Details: map[string]any{"reason": "sandbox_quota_exceeded",
		"live_sandboxes": use.Live, "live_gpus": use.GPUs, "max_live_sandboxes": q.MaxLive, "max_gpus": q.MaxGPUs}}
}
