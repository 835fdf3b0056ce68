package flywheel

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// GatewayLease is what an LLM gateway token resolves to.
type GatewayLease struct {
	RolloutID string
	Epoch     int64
}

// ResolveGateway admits a gateway request: the token must be the current,
// unexpired lease's LLM token, presented with that lease's api key, before
// the output is accepted and the deadline passes. Unknown token ⇒
// ErrUnknownKey; another key ⇒ ErrForeignKey; a lease expired or
// superseded by a later one, or a rollout ended ⇒ ErrGone.
func ResolveGateway(ctx context.Context, db *gorm.DB, llmToken, apiKey string, now time.Time) (GatewayLease, error) {
	db = db.WithContext(ctx)
	tokenHash := Hash(llmToken)
	var l Lease
	err := leasesOfSecret(db, llmToken).Where("llm_token_hash = ?", tokenHash).Take(&l).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return GatewayLease{}, ErrUnknownKey
	}
	if err != nil {
		return GatewayLease{}, err
	}
	var r Rollout
	if err := db.Where("id = ?", l.RolloutID).Take(&r).Error; err != nil {
		return GatewayLease{}, err
	}
	if !sameHash(l.APIKeyHash, Hash(apiKey)) {
		return GatewayLease{}, ErrForeignKey
	}
	switch {
	case r.OutputAt != nil || r.Status != StatusLeased || !now.Before(r.DeadlineAt):
		return GatewayLease{}, ErrGone
	case l.Epoch != r.LeaseEpoch || !sameHash(r.LLMTokenHash, tokenHash):
		return GatewayLease{}, ErrGone // superseded by a later lease
	case r.LeaseExpiresAt == nil || !now.Before(*r.LeaseExpiresAt):
		return GatewayLease{}, ErrGone // expired, not yet revoked by the workflow
	}
	return GatewayLease{RolloutID: r.ID, Epoch: r.LeaseEpoch}, nil
}

// RecordCall logs one proxied call, keyed by its call id, and counts it as
// an observed completion of its lease epoch when it is one and the
// upstream accepted it: on the lease's row always, and on the rollout's
// current-lease count only while that lease is still current (a call of a
// superseded lease finishing late never counts for the next). A repeated
// call id writes and counts nothing. The gateway's count is the authority
// for llm_calls_observed.
func RecordCall(ctx context.Context, db *gorm.DB, c GatewayCall) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&c)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		if !c.Completion || c.Status < 200 || c.Status > 299 {
			return nil
		}
		if err := tx.Model(&Lease{}).Where("rollout_id = ? AND epoch = ?", c.RolloutID, c.Epoch).
			UpdateColumn("llm_calls", gorm.Expr("llm_calls + 1")).Error; err != nil {
			return err
		}
		return tx.Model(&Rollout{}).Where("id = ? AND lease_epoch = ?", c.RolloutID, c.Epoch).
			UpdateColumn("llm_calls_observed", gorm.Expr("llm_calls_observed + 1")).Error
	})
}

// RecordEmitted stores the tool_call_ids a completion's response named,
// once its body has passed through; keyed by the call id, so a retry
// writes the same value.
func RecordEmitted(ctx context.Context, db *gorm.DB, callID string, ids *string) error {
	return db.WithContext(ctx).Model(&GatewayCall{}).Where("id = ?", callID).Update("emitted_tool_call_ids", ids).Error
}

// Calls lists a rollout's gateway calls in arrival order.
func Calls(ctx context.Context, db *gorm.DB, id string) ([]GatewayCall, error) {
	var out []GatewayCall
	return out, db.WithContext(ctx).Where("rollout_id = ?", id).Order("started_at, id").Find(&out).Error
}
