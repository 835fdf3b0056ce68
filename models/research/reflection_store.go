package research

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"gorm.io/gorm"
)

// CreateReflection stores a new open wave; a project with an open wave
// gets a conflict naming it, and nothing is written. start runs inside the
// transaction (the workflow start), so a wave whose workflow did not start
// is not recorded.
func CreateReflection(ctx context.Context, db *gorm.DB, r Reflection, start func() error) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var open Reflection
		err := tx.Where("open_project = ?", r.ProjectID).Take(&open).Error
		if err == nil {
			return &Error{Code: CodeConflict, Field: "/project_id", Message: "the project already has an open reflection wave " + open.ID,
				Details: map[string]any{"reflection_id": open.ID}}
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		pid := r.ProjectID
		r.OpenProject = &pid
		if err := tx.Create(&r).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return &Error{Code: CodeConflict, Field: "/project_id", Message: "the project already has an open reflection wave"}
			}
			return err
		}
		return start()
	})
}

// MirrorReflection writes the workflow's status into the row when rev is
// newer than what the row has; a terminal status frees the open slot.
func MirrorReflection(ctx context.Context, db *gorm.DB, id, status, gate, next string, attempt, rev int, terminal bool) error {
	up := map[string]any{"status": status, "gate": gate, "next_action": next, "attempt": attempt, "revision": rev, "updated_at": time.Now().UTC()}
	if terminal {
		up["open_project"] = nil
	}
	return db.WithContext(ctx).Model(&Reflection{}).Where("id = ? AND revision < ?", id, rev).Updates(up).Error
}

// LastPublishedAt is the corpus cutoff of the project's latest published
// wave (nil if none was published): the latest time its corpus can have
// been snapshotted, which is its created_at (reflection.create snapshots the
// corpus before storing the wave), or its published_at should that be
// earlier. An experiment that finishes after the snapshot, even while that
// wave is still open, belongs to the next wave; cutting off at published_at
// would lose it.
func LastPublishedAt(ctx context.Context, db *gorm.DB, projectID string) (*time.Time, error) {
	var r Reflection
	err := db.WithContext(ctx).Where("project_id = ? AND published_at IS NOT NULL", projectID).Order("published_at DESC").Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cutoff := r.CreatedAt
	if r.PublishedAt.Before(cutoff) {
		cutoff = *r.PublishedAt
	}
	return &cutoff, nil
}

// CountFinishedSince counts the next reflection wave's corpus (see
// FinishedSince); since is LastPublishedAt.
func CountFinishedSince(ctx context.Context, db *gorm.DB, projectID string, since *time.Time) (int64, error) {
	reflected, err := publishedCorpusExperimentIDs(ctx, db, projectID, since)
	if err != nil {
		return 0, err
	}
	var n int64
	return n, finishedSince(db.WithContext(ctx).Model(&Experiment{}), projectID, since, reflected).Count(&n).Error
}

// FinishedSince lists, oldest first, the corpus of the project's next
// reflection wave: its finished experiments that finished after since
// (LastPublishedAt, the last published wave's corpus snapshot; all of them
// when since is nil) and are in no published wave's corpus, so none is
// reflected on twice.
func FinishedSince(ctx context.Context, db *gorm.DB, projectID string, since *time.Time) ([]Experiment, error) {
	reflected, err := publishedCorpusExperimentIDs(ctx, db, projectID, since)
	if err != nil {
		return nil, err
	}
	var out []Experiment
	return out, finishedSince(db.WithContext(ctx), projectID, since, reflected).Order("created_at").Find(&out).Error
}

// corpusCutoffMargin widens the cutoff back in time. An experiment that
// finished just before a wave's created_at yet is not in its corpus (it
// finished while reflection.create was between reading the corpus and
// storing the wave, or the worker's clock that stamped finished_at runs
// behind the api's) belongs to the next wave; the published corpora's
// ids keep the margin from counting any experiment twice.
const corpusCutoffMargin = time.Minute

func finishedSince(q *gorm.DB, projectID string, since *time.Time, reflected []string) *gorm.DB {
	q = q.Where("project_id = ? AND status IN ?", projectID, []string{"complete", "failed", "abandoned"})
	if since != nil {
		q = q.Where("finished_at IS NULL OR finished_at > ?", since.Add(-corpusCutoffMargin))
	}
	if len(reflected) > 0 {
		q = q.Where("id NOT IN ?", reflected)
	}
	return q
}

// publishedCorpusExperimentIDs lists the experiments in the stored corpus
// (CorpusJSON, entries with an experiment_id) of the project's published
// waves; none when since is nil (no wave was published). A corpus that does
// not decode adds none.
func publishedCorpusExperimentIDs(ctx context.Context, db *gorm.DB, projectID string, since *time.Time) ([]string, error) {
	if since == nil {
		return nil, nil
	}
	var corpora []string
	if err := db.WithContext(ctx).Model(&Reflection{}).Where("project_id = ? AND published_at IS NOT NULL", projectID).
		Pluck("corpus_json", &corpora).Error; err != nil {
		return nil, err
	}
	var out []string
	for _, raw := range corpora {
		var entries []struct {
			ExperimentID string `json:"experiment_id"`
		}
		if json.Unmarshal([]byte(raw), &entries) != nil {
			continue
		}
		for _, e := range entries {
			if e.ExperimentID != "" {
				out = append(out, e.ExperimentID)
			}
		}
	}
	return out, nil
}

// SubmitProposal stores p once per (reflection, revision) and runs deliver
// (the signal to the wave's workflow) in the same transaction; a second
// proposal for the revision is a conflict.
func SubmitProposal(ctx context.Context, db *gorm.DB, p ConsolidationProposal, deliver func() error) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&ConsolidationProposal{}).Where("reflection_id = ? AND revision = ?", p.ReflectionID, p.Revision).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return proposalConflict(p.Revision)
		}
		if err := tx.Create(&p).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return proposalConflict(p.Revision)
			}
			return err
		}
		return deliver()
	})
}

func proposalConflict(rev int) *Error {
	return &Error{Code: CodeConflict, Field: "/reflection_id", Message: "a consolidation proposal was already submitted for this attempt (revision) and is immutable",
		Details: map[string]any{"proposal_revision": rev}}
}

// ErrLeaseHeld is returned while another owner holds an advance's lease.
var ErrLeaseHeld = errors.New("central advance lease held by another owner")

// AcquireAdvance records the advance intended under owner's lease, or
// renews owner's own lease, or takes over an expired one. A settled
// advance is returned as it is (settled true): a retry changes nothing.
func AcquireAdvance(ctx context.Context, db *gorm.DB, a CentralAdvance, lease time.Duration, now time.Time) (CentralAdvance, bool, error) {
	var cur CentralAdvance
	err := db.WithContext(ctx).Where("id = ?", a.ID).Take(&cur).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		a.Status, a.LeaseExpiresAt = AdvanceIntended, now.Add(lease)
		if err := db.WithContext(ctx).Create(&a).Error; err != nil {
			if errors.Is(err, gorm.ErrDuplicatedKey) {
				return a, false, ErrLeaseHeld
			}
			return a, false, err
		}
		return a, false, nil
	}
	if err != nil {
		return cur, false, err
	}
	if cur.Status != AdvanceIntended {
		return cur, true, nil
	}
	if cur.Owner != a.Owner && now.Before(cur.LeaseExpiresAt) {
		return cur, false, ErrLeaseHeld
	}
	res := db.WithContext(ctx).Model(&CentralAdvance{}).Where("id = ? AND owner = ? AND status = ?", cur.ID, cur.Owner, AdvanceIntended).
		Updates(map[string]any{"owner": a.Owner, "lease_expires_at": now.Add(lease), "updated_at": now})
	if res.Error != nil {
		return cur, false, res.Error
	}
	if res.RowsAffected != 1 {
		return cur, false, ErrLeaseHeld
	}
	cur.Owner = a.Owner
	return cur, false, nil
}

// SettleAdvance records the outcome of owner's advance once.
func SettleAdvance(ctx context.Context, db *gorm.DB, id, owner, status, observed, msg string) error {
	return db.WithContext(ctx).Model(&CentralAdvance{}).Where("id = ? AND owner = ? AND status = ?", id, owner, AdvanceIntended).
		Updates(map[string]any{"status": status, "observed": observed, "error": msg, "updated_at": time.Now().UTC()}).Error
}
