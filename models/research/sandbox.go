package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Sandbox statuses. The sandbox workflow is the authority for status and
// expiry; this row mirrors them (written by its activities) so sandboxes
// can be listed.
const (
	SandboxProvisioning   = "provisioning"
	SandboxRunning        = "running"
	SandboxTerminated     = "terminated"
	SandboxFailed         = "failed"
	SandboxCleanupPending = "cleanup_pending"
)

// Sandbox is one requested sandbox.
type Sandbox struct {
	UID          string `gorm:"primaryKey;size:64"`
	ProjectID    string `gorm:"size:64;not null;index"`
	ExperimentID string `gorm:"size:64;not null;default:'';index"`
	Provider     string `gorm:"size:32;not null"`
	InstanceType string `gorm:"size:64;not null"`
	Region       string `gorm:"size:64;not null;default:''"`
	CPU          float64
	MemoryMB     int
	GPU          int
	PublicKey    string `gorm:"size:8000;not null"`
	KeyFP        string `gorm:"size:128;not null;default:''"`
	Status       string `gorm:"size:24;not null;index"`
	SSHHost      string `gorm:"size:255;not null;default:''"`
	SSHPort      int
	SSHUser      string `gorm:"size:64;not null;default:''"`
	Workdir      string `gorm:"size:1024;not null;default:''"`
	// HostQueue is the task queue of the worker host holding a local
	// sandbox, mirrored from its workflow's endpoint so an ended sandbox
	// can be read after Temporal purged its workflow.
	HostQueue string `gorm:"size:255;not null;default:''"`
	// InspectToken is the bearer token of the sandbox agent of a Pod
	// (kubernetes with recorded runs); only this row holds it.
	InspectToken string `gorm:"size:128;not null;default:''"`
	ExpiresAt    time.Time
	LastError    string `gorm:"size:2000;not null;default:''"`
	CreatedBy    string `gorm:"size:64;not null;default:''"`
	CreatedAt    time.Time
	UpdatedAt    time.Time
	EndedAt      *time.Time
}

// TableName implements gorm's Tabler.
func (Sandbox) TableName() string { return "research_sandboxes" }

// Active reports whether the sandbox may still be used.
func (s Sandbox) Active() bool {
	return s.Status == SandboxProvisioning || s.Status == SandboxRunning
}

// SandboxPull is one path pulled from a sandbox into a storage object.
type SandboxPull struct {
	ID         uint   `gorm:"primaryKey"`
	SandboxUID string `gorm:"size:64;not null;uniqueIndex:idx_research_sandbox_pull,priority:1"`
	Path       string `gorm:"size:1024;not null;uniqueIndex:idx_research_sandbox_pull,priority:2"`
	SHA256     string `gorm:"size:64;not null;uniqueIndex:idx_research_sandbox_pull,priority:3"`
	ObjectID   string `gorm:"size:64;not null"`
	CreatedAt  time.Time
}

// TableName implements gorm's Tabler.
func (SandboxPull) TableName() string { return "research_sandbox_pulls" }

// CreateSandbox inserts a new sandbox row in provisioning.
func CreateSandbox(ctx context.Context, db *gorm.DB, s Sandbox) error {
	s.Status = SandboxProvisioning
	return db.WithContext(ctx).Create(&s).Error
}

// GetSandbox loads one sandbox of a project.
func GetSandbox(ctx context.Context, db *gorm.DB, projectID, uid string) (Sandbox, error) {
	var s Sandbox
	err := db.WithContext(ctx).Where("uid = ? AND project_id = ?", uid, projectID).Take(&s).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return s, &Error{Code: CodeNotFound, Field: "/sandbox_uid", Message: "no sandbox " + uid + " in project " + projectID}
	}
	return s, err
}

// ListSandboxes lists a project's sandboxes, newest first; experimentID
// narrows to one experiment and active to provisioning or running ones.
func ListSandboxes(ctx context.Context, db *gorm.DB, projectID, experimentID string, active bool) ([]Sandbox, error) {
	q := db.WithContext(ctx).Where("project_id = ?", projectID)
	if experimentID != "" {
		q = q.Where("experiment_id = ?", experimentID)
	}
	if active {
		q = q.Where("status IN ?", []string{SandboxProvisioning, SandboxRunning})
	}
	var out []Sandbox
	return out, q.Order("created_at DESC").Limit(200).Find(&out).Error
}

// SandboxUpdate is what the sandbox workflow mirrors into the row.
type SandboxUpdate struct {
	UID       string
	Status    string
	Host      string
	Port      int
	User      string
	Workdir   string
	HostQueue string
	ExpiresAt time.Time
	Error     string
}

// MirrorSandbox writes the workflow's view of a sandbox. It is idempotent,
// and a terminal row is never moved back to a live status.
func MirrorSandbox(ctx context.Context, db *gorm.DB, u SandboxUpdate, now time.Time) error {
	set := map[string]any{"status": u.Status, "expires_at": u.ExpiresAt, "last_error": u.Error, "updated_at": now}
	if u.Host != "" {
		set["ssh_host"], set["ssh_port"], set["ssh_user"], set["workdir"] = u.Host, u.Port, u.User, u.Workdir
	}
	if u.HostQueue != "" {
		set["host_queue"] = u.HostQueue
	}
	if u.Status == SandboxTerminated || u.Status == SandboxFailed {
		set["ended_at"] = now
	}
	q := db.WithContext(ctx).Model(&Sandbox{}).Where("uid = ?", u.UID)
	if u.Status != SandboxTerminated && u.Status != SandboxFailed {
		q = q.Where("status NOT IN ?", []string{SandboxTerminated, SandboxFailed})
	}
	return q.Updates(set).Error
}

// AttachSandbox links a sandbox to an experiment.
func AttachSandbox(ctx context.Context, db *gorm.DB, projectID, uid, experimentID string) error {
	return db.WithContext(ctx).Model(&Sandbox{}).Where("uid = ? AND project_id = ?", uid, projectID).
		Update("experiment_id", experimentID).Error
}

// RecordPull records a pulled path; pulling the same bytes again is a no-op.
func RecordPull(ctx context.Context, db *gorm.DB, p SandboxPull) error {
	return db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&p).Error
}

// Pulls lists what was pulled from a sandbox.
func Pulls(ctx context.Context, db *gorm.DB, uid string) ([]SandboxPull, error) {
	var out []SandboxPull
	return out, db.WithContext(ctx).Where("sandbox_uid = ?", uid).Order("id").Find(&out).Error
}
