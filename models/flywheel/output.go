package flywheel

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// AcceptOutput stores the holder's output exactly once: a compare-and-swap
// sets output_at on the rollout only while the holder's lease is current
// and unexpired and the deadline has not passed, and the output row is
// keyed by the rollout id. The same statement (or transaction) writes the
// output Notice, so an accepted output's workflow is told even if this
// process dies before it could. A second output answers ErrOutputAccepted
// with sameBody telling whether it repeats the accepted one byte for byte
// (so a client that lost the first answer knows its output landed).
func AcceptOutput(ctx context.Context, db *gorm.DB, h Holder, o Output, now time.Time) (epoch int64, sameBody bool, err error) {
	now = dbTime(now)
	db = db.WithContext(ctx)
	if db.Dialector.Name() == "postgres" {
		return acceptOutputOneStatement(db, h, o, now)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		epoch, sameBody, err = acceptOutputTx(tx, tx.Statement.ConnPool, h, o, now)
		return err
	})
	return epoch, sameBody, err
}

// leaseRefused tells whether err is one of the answers a lease-guarded
// write (AcceptOutput, ExtendLease) gives a request it does not take:
// nothing was written for it, and the database did not fail.
func leaseRefused(err error) bool {
	for _, refusal := range []error{ErrOutputAccepted, ErrStaleLease, ErrGone, ErrUnknownKey, ErrForeignKey} {
		if errors.Is(err, refusal) {
			return true
		}
	}
	return false
}

// sameOutputBody reports whether o repeats the accepted output of id.
func sameOutputBody(db *gorm.DB, id string, o Output) bool {
	var prev Output
	return db.Where("rollout_id = ?", id).Take(&prev).Error == nil && prev.BodySHA256 == o.BodySHA256
}

// Finalize records the workflow's terminal decision: completed (after an
// accepted output; excluded instead when the output itself carries an
// exclusion) or excluded with reason. The workflow is the authority; this
// mirrors it once (a rollout already terminal is left alone), so a retried
// activity writes nothing twice.
//
// It returns the terminal status and exclusion reason as stored.
func Finalize(ctx context.Context, db *gorm.DB, id, status, reason, detail string, heartbeats int64, now time.Time) (string, string, error) {
	now = dbTime(now)
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r Rollout
		if err := tx.Where("id = ?", id).Take(&r).Error; err != nil {
			return err
		}
		if r.Status == StatusCompleted || r.Status == StatusExcluded {
			status, reason = r.Status, deref(r.ExclusionReason)
			return nil
		}
		if r.OutputAt != nil && status == StatusExcluded && reason == "deadline_exceeded" {
			status = StatusCompleted // the output landed in time; its signal was late
		}
		if status == StatusCompleted {
			var o Output
			if err := tx.Where("rollout_id = ?", id).Take(&o).Error; err == nil && o.ExclusionReason != nil {
				status, reason = StatusExcluded, *o.ExclusionReason
				detail = ""
				if o.ExclusionDetail != nil {
					detail = *o.ExclusionDetail
				}
			}
		}
		fields := map[string]any{"status": status, "finished_at": now, "updated_at": now,
			"lease_token_hash": "", "api_key_hash": "", "llm_token_hash": ""}
		if status == StatusExcluded {
			fields["exclusion_reason"] = reason
			fields["exclusion_detail"] = nilIfEmpty(detail)
		}
		if err := tx.Model(&Rollout{}).Where("id = ? AND status IN ?", id, []string{StatusQueued, StatusLeased}).Updates(fields).Error; err != nil {
			return err
		}
		if r.LeaseEpoch == 0 {
			return nil
		}
		end := "output"
		if status == StatusExcluded && r.OutputAt == nil {
			end = reason
		}
		if r.LeaseExpiresAt != nil {
			if err := tx.Model(&Lease{}).Where("rollout_id = ? AND epoch = ? AND ended_at IS NULL", id, r.LeaseEpoch).
				Update("expires_at", *r.LeaseExpiresAt).Error; err != nil {
				return err
			}
		}
		return endLease(tx, id, r.LeaseEpoch, end, now, max(heartbeats, r.LeaseHeartbeats))
	})
	if status != StatusExcluded {
		reason = ""
	}
	return status, reason, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
