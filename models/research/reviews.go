package research

import (
	"context"
	"crypto/subtle"
	"errors"
	"time"

	"gorm.io/gorm"
)

// CreateReviewRequest stores r and supersedes any open request for the same
// target and role, in one transaction. One review of a kind is open per
// target at a time: while an unexpired request of r's kind with another
// role is open on r's snapshot (a human review the agent would sidestep
// with a reviewer of its own), r is refused with a conflict naming it, and
// nothing is written. An open request of an older snapshot is superseded
// whatever its role: its pass could never count, and status_and_next
// already asks for a new review.
//
// Concurrent requests for one target are serialized (a PostgreSQL
// transaction lock on the target, taken before the check; SQLite
// transactions begin immediate and so serialize writers), so two of them
// cannot both pass the check: the later one sees the earlier and is
// refused, or supersedes it when its role is the same.
//
// deliver, when set, tells the target's workflow inside the transaction:
// a request the workflow could not be told of is not stored, so it can
// neither hold the kind's one open review nor be answered.
func CreateReviewRequest(ctx context.Context, db *gorm.DB, r ReviewRequest, deliver func() error) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if tx.Name() == "postgres" {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtext(?))", "research_review_requests/"+r.TargetType+"/"+r.TargetID).Error; err != nil {
				return err
			}
		}
		var other ReviewRequest
		err := tx.Where("target_type = ? AND target_id = ? AND kind = ? AND role <> ? AND status IN ? AND expires_at > ? AND snapshot_token = ?",
			r.TargetType, r.TargetID, r.Kind, r.Role, openReviewStatuses, time.Now().UTC(), r.SnapshotToken).Take(&other).Error
		if err == nil {
			return &Error{Code: CodeConflict, Field: "/role", Message: "a " + other.Role + " review of this target is open (" + other.ID +
				"); one review of a kind at a time: wait for it, or let it expire", Details: map[string]any{"review_request_id": other.ID,
				"role": other.Role, "expires_at": other.ExpiresAt, "reason": "review_pending"}}
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		if err := tx.Model(&ReviewRequest{}).
			Where("target_type = ? AND target_id = ? AND status IN ? AND (role = ? OR (kind = ? AND snapshot_token <> ?))",
				r.TargetType, r.TargetID, openReviewStatuses, r.Role, r.Kind, r.SnapshotToken).
			Updates(map[string]any{"status": ReviewSuperseded, "updated_at": time.Now().UTC()}).Error; err != nil {
			return err
		}
		if err := tx.Create(&r).Error; err != nil || deliver == nil {
			return err
		}
		return deliver()
	})
}

// ClaimReviewRequest checks a capability against its request and marks the
// request started, once: a wrong capability is forbidden, an expired one
// expired, a used or superseded one a conflict. The caller session must
// differ from the producer's.
func ClaimReviewRequest(ctx context.Context, db *gorm.DB, requestID, capabilityHash, callerSessionID string, now time.Time) (ReviewRequest, error) {
	var r ReviewRequest
	err := db.WithContext(ctx).Where("id = ?", requestID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return r, &Error{Code: CodeForbidden, Field: "/reviewer_capability", Message: "the capability does not open this review request"}
	}
	if err != nil {
		return r, err
	}
	if subtle.ConstantTimeCompare([]byte(r.CapabilityHash), []byte(capabilityHash)) != 1 {
		return r, &Error{Code: CodeForbidden, Field: "/reviewer_capability", Message: "the capability does not open this review request"}
	}
	if !now.Before(r.ExpiresAt) {
		return r, &Error{Code: CodeExpired, Field: "/reviewer_capability", Message: "the review request expired; ask the producer for a new review.request"}
	}
	if r.Status != ReviewRequested {
		return r, &Error{Code: CodeConflict, Field: "/review_request_id", Message: "the review request is " + r.Status + "; a capability is single-use"}
	}
	if callerSessionID == r.ProducerSessionID {
		return r, &Error{Code: CodeForbidden, Field: "/caller_session_id", Message: "a reviewer must use a session other than the producer's"}
	}
	return r, nil
}

// StartReviewSession marks request started and opens its session, once,
// and runs deliver (the notice to the target's workflow) inside the same
// transaction, so a start the workflow could not be told of is not
// recorded and the reviewer's retry finds the request still open.
func StartReviewSession(ctx context.Context, db *gorm.DB, r ReviewRequest, s ReviewSession, deliver func() error) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&ReviewRequest{}).Where("id = ? AND status = ?", r.ID, ReviewRequested).
			Updates(map[string]any{"status": ReviewStarted, "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return &Error{Code: CodeConflict, Field: "/review_request_id", Message: "the review request was already started"}
		}
		if err := tx.Create(&s).Error; err != nil {
			return err
		}
		return deliver()
	})
}

// SubmitVerdict records a session's verdict once and runs deliver (the
// signal to the target's workflow) inside the same transaction, so a
// verdict that could not be delivered is not recorded.
func SubmitVerdict(ctx context.Context, db *gorm.DB, sessionID string, s ReviewSession, deliver func(ReviewRequest) error) (ReviewRequest, error) {
	var req ReviewRequest
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur ReviewSession
		if err := tx.Where("id = ?", sessionID).Take(&cur).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return &Error{Code: CodeNotFound, Field: "/review_session_id", Message: "no such review session"}
			}
			return err
		}
		if err := tx.Where("id = ?", cur.RequestID).Take(&req).Error; err != nil {
			return err
		}
		if req.Status != ReviewStarted {
			return &Error{Code: CodeConflict, Field: "/review_session_id", Message: "the review request is " + req.Status + "; a verdict is recorded once"}
		}
		if !time.Now().Before(req.ExpiresAt) {
			return &Error{Code: CodeExpired, Field: "/review_session_id", Message: "the review request expired"}
		}
		now := time.Now().UTC()
		res := tx.Model(&ReviewSession{}).Where("id = ? AND submitted_at IS NULL", sessionID).Updates(map[string]any{
			"verdict": s.Verdict, "return_to": s.ReturnTo, "synopsis": s.Synopsis, "notes": s.Notes,
			"findings_json": s.FindingsJSON, "evidence_json": s.EvidenceJSON, "submitted_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return &Error{Code: CodeConflict, Field: "/review_session_id", Message: "a verdict was already recorded"}
		}
		if err := tx.Model(&ReviewRequest{}).Where("id = ?", req.ID).
			Updates(map[string]any{"status": ReviewSubmitted, "updated_at": now}).Error; err != nil {
			return err
		}
		return deliver(req)
	})
	return req, err
}

// openReviewStatuses are the statuses of an open review request.
var openReviewStatuses = []string{ReviewRequested, ReviewStarted}
