package research

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// Where a recorded sha came from.
const (
	// ShaFromEvidence: the agent named it in the transition's evidence.
	ShaFromEvidence = "evidence"
	// ShaFromCentral: the project's central ref when the experiment started.
	ShaFromCentral = "central"
	// ShaFromBranch: the tip of the experiment's branch in the central repository.
	ShaFromBranch = "branch"
)

// ExperimentCode is an experiment's code state: the branch its work lives
// on, the commit it started from (recorded at start_running) and the commit
// its results came from (recorded at submit_results, kept or replaced at
// complete). Experiment transitions write it; consolidation packets read
// it. Empty strings are "not recorded".
type ExperimentCode struct {
	ExperimentID   string `gorm:"primaryKey;size:64"`
	ProjectID      string `gorm:"size:64;not null;index"`
	Branch         string `gorm:"size:255;not null;default:''"`
	BaseSHA        string `gorm:"size:64;not null;default:''"`
	BaseSource     string `gorm:"size:16;not null;default:''"`
	BaseRecordedAt *time.Time
	HeadSHA        string `gorm:"size:64;not null;default:''"`
	HeadSource     string `gorm:"size:16;not null;default:''"`
	HeadRecordedAt *time.Time
	UpdatedAt      time.Time
}

// TableName pins the table name.
func (ExperimentCode) TableName() string { return "research_experiment_commits" }

// ExperimentCommitsMigration creates research_experiment_commits from a
// frozen copy of its model as of this version.
func ExperimentCommitsMigration() migrate.Migration {
	return migrate.Migration{ID: "2026112970_research_experiment_commits", Up: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&experimentCodeV1{})
	}}
}

type experimentCodeV1 struct {
	ExperimentID   string `gorm:"primaryKey;size:64"`
	ProjectID      string `gorm:"size:64;not null;index"`
	Branch         string `gorm:"size:255;not null;default:''"`
	BaseSHA        string `gorm:"size:64;not null;default:''"`
	BaseSource     string `gorm:"size:16;not null;default:''"`
	BaseRecordedAt *time.Time
	HeadSHA        string `gorm:"size:64;not null;default:''"`
	HeadSource     string `gorm:"size:16;not null;default:''"`
	HeadRecordedAt *time.Time
	UpdatedAt      time.Time
}

func (experimentCodeV1) TableName() string { return "research_experiment_commits" }

// CodeUpdate is what one transition adds to an experiment's code state; an
// empty field leaves the recorded value alone.
type CodeUpdate struct {
	ExperimentID string
	ProjectID    string
	Branch       string
	BaseSHA      string
	BaseSource   string
	HeadSHA      string
	HeadSource   string
}

// ExperimentCodeOf returns the experiment's code state (ok false if none
// was recorded).
func ExperimentCodeOf(ctx context.Context, db *gorm.DB, experimentID string) (ExperimentCode, bool, error) {
	var c ExperimentCode
	err := db.WithContext(ctx).Where("experiment_id = ?", experimentID).Take(&c).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return c, false, nil
	}
	return c, err == nil, err
}

// ExperimentCodes returns the code states of ids, keyed by experiment id.
func ExperimentCodes(ctx context.Context, db *gorm.DB, ids []string) (map[string]ExperimentCode, error) {
	out := make(map[string]ExperimentCode, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []ExperimentCode
	if err := db.WithContext(ctx).Where("experiment_id IN ?", ids).Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ExperimentID] = r
	}
	return out, nil
}

// CheckBranch refuses a branch other than the one recorded (CodeInvalid on
// /evidence/branch): an experiment's code lives on one branch.
func CheckBranch(cur ExperimentCode, branch string) error {
	if branch == "" || cur.Branch == "" || branch == cur.Branch {
		return nil
	}
	return &Error{Code: CodeInvalid, Field: "/evidence/branch",
		Message: "the experiment's branch was recorded as " + cur.Branch + "; an experiment's code lives on one branch",
		Details: map[string]any{"recorded_branch": cur.Branch, "given_branch": branch}}
}

// RecordExperimentCode merges u into the experiment's code state and
// returns the result. Callers write it once the transition that reported
// it was accepted, so a refused transition records nothing; a recorded
// branch is never replaced (see CheckBranch).
func RecordExperimentCode(ctx context.Context, db *gorm.DB, u CodeUpdate, now time.Time) (ExperimentCode, error) {
	var out ExperimentCode
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur ExperimentCode
		err := tx.Where("experiment_id = ?", u.ExperimentID).Take(&cur).Error
		found := err == nil
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		if !found {
			cur = ExperimentCode{ExperimentID: u.ExperimentID, ProjectID: u.ProjectID}
		}
		merge(&cur, u, now)
		if found {
			err = tx.Save(&cur).Error
		} else {
			err = tx.Create(&cur).Error
		}
		out = cur
		return err
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) { // a concurrent first write; merge into it
		return RecordExperimentCode(ctx, db, u, now)
	}
	return out, err
}

func merge(c *ExperimentCode, u CodeUpdate, now time.Time) {
	if c.Branch == "" {
		c.Branch = u.Branch
	}
	if u.BaseSHA != "" {
		c.BaseSHA, c.BaseSource, c.BaseRecordedAt = strings.ToLower(u.BaseSHA), u.BaseSource, &now
	}
	if u.HeadSHA != "" {
		c.HeadSHA, c.HeadSource, c.HeadRecordedAt = strings.ToLower(u.HeadSHA), u.HeadSource, &now
	}
	c.UpdatedAt = now
}
