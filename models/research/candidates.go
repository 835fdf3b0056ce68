package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// SubmitCandidate stores c once per (project, idempotency key): the same key
// with the same request hash returns the stored candidate (created false);
// with another request it is a conflict.
func SubmitCandidate(ctx context.Context, db *gorm.DB, c Candidate) (Candidate, bool, error) {
	var existing Candidate
	err := db.WithContext(ctx).Where("project_id = ? AND idempotency_key = ?", c.ProjectID, c.IdempotencyKey).Take(&existing).Error
	if err == nil {
		if existing.RequestHash != c.RequestHash {
			return Candidate{}, false, &Error{Code: CodeConflict, Field: "/idempotency_key",
				Message: "idempotency_key was used for a different candidate.submit request"}
		}
		return existing, false, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return Candidate{}, false, err
	}
	if c.ID == "" {
		c.ID = NewID("cand_")
	}
	if err := db.WithContext(ctx).Create(&c).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) { // a concurrent submit with the same key won
			return SubmitCandidate(ctx, db, c)
		}
		return Candidate{}, false, err
	}
	return c, true, nil
}

// ChampionOf returns the current champion's candidate id ("" if none).
func ChampionOf(ctx context.Context, db *gorm.DB, projectID string) (string, error) {
	var ch Champion
	err := db.WithContext(ctx).Where("project_id = ?", projectID).Take(&ch).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", nil
	}
	return ch.CandidateID, err
}

// PromoteResult answers Promote.
type PromoteResult struct {
	ChampionID string
	Promoted   bool
	Promotion  *Promotion
}

// Promote makes candidateID the champion if the champion is still
// expectedChampionID ("" for none), in one transaction: the champion cell
// is swapped with a conditional update (or created under its primary key),
// so of concurrent promotes with the same expectation exactly one wins and
// the others get a conflict naming the actual champion.
func Promote(ctx context.Context, db *gorm.DB, projectID, candidateID, expectedChampionID, reason, by string) (PromoteResult, error) {
	var out PromoteResult
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cand Candidate
		if err := tx.Where("id = ? AND project_id = ?", candidateID, projectID).Take(&cand).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return &Error{Code: CodeNotFound, Field: "/candidate_id", Message: "no candidate " + candidateID + " in this project"}
			}
			return err
		}
		if cand.SourceKind == "experiment_workspace" {
			var n int64
			if err := tx.Model(&CandidateStage{}).Where("candidate_id = ?", cand.ID).Count(&n).Error; err != nil {
				return err
			}
			if n == 0 {
				return &Error{Code: CodeConflict, Field: "/candidate_id", Message: "an experiment_workspace candidate must be staged (candidate.stage) before promotion"}
			}
		}
		var ch Champion
		err := tx.Where("project_id = ?", projectID).Take(&ch).Error
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		if ch.CandidateID != expectedChampionID {
			return championMismatch(expectedChampionID, ch.CandidateID)
		}
		if ch.CandidateID == candidateID {
			out = PromoteResult{ChampionID: candidateID, Promoted: false}
			return nil
		}
		now := time.Now().UTC()
		seq := ch.Seq + 1
		if ch.ProjectID == "" {
			if err := tx.Create(&Champion{ProjectID: projectID, CandidateID: candidateID, Seq: seq, UpdatedAt: now}).Error; err != nil {
				if errors.Is(err, gorm.ErrDuplicatedKey) {
					return championMismatch(expectedChampionID, "(changed concurrently)")
				}
				return err
			}
		} else {
			res := tx.Model(&Champion{}).Where("project_id = ? AND candidate_id = ? AND seq = ?", projectID, ch.CandidateID, ch.Seq).
				Updates(map[string]any{"candidate_id": candidateID, "seq": seq, "updated_at": now})
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected != 1 {
				return championMismatch(expectedChampionID, "(changed concurrently)")
			}
		}
		p := Promotion{ID: NewID("prom_"), ProjectID: projectID, Seq: seq, CandidateID: candidateID,
			PreviousChampionID: ch.CandidateID, Reason: reason, PromotedBy: by, CreatedAt: now}
		if err := tx.Create(&p).Error; err != nil {
			return err
		}
		out = PromoteResult{ChampionID: candidateID, Promoted: true, Promotion: &p}
		return nil
	})
	return out, err
}

func championMismatch(expected, actual string) *Error {
	return &Error{Code: CodeConflict, Field: "/expected_champion_id",
		Message: "the champion changed; refresh with candidate.list and retry",
		Details: map[string]any{"expected_champion_id": expected, "actual_champion_id": actual}}
}
