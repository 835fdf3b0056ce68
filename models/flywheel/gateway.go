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

// ResolveGateway admits a gateway request: the token must be the current
// lease's LLM token, presented with that lease's api key, before the output
// is accepted and the deadline passes. Unknown token ⇒ ErrUnknownKey;
// another key ⇒ ErrForeignKey; ended ⇒ ErrGone.
func ResolveGateway(ctx context.Context, db *gorm.DB, llmToken, apiKey string, now time.Time) (GatewayLease, error) {
	var r Rollout
	err := db.WithContext(ctx).Where("llm_token_hash = ?", Hash(llmToken)).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return GatewayLease{}, ErrUnknownKey
	}
	if err != nil {
		return GatewayLease{}, err
	}
	if !sameHash(r.APIKeyHash, Hash(apiKey)) {
		return GatewayLease{}, ErrForeignKey
	}
	if r.OutputAt != nil || r.Status != StatusLeased || !now.Before(r.DeadlineAt) {
		return GatewayLease{}, ErrGone
	}
	return GatewayLease{RolloutID: r.ID, Epoch: r.LeaseEpoch}, nil
}

// RecordCall logs one proxied call, keyed by its call id, and counts it as
// an observed completion when it is one and the upstream accepted it. A
// repeated call id writes and counts nothing. The gateway's count is the
// authority for llm_calls_observed.
func RecordCall(ctx context.Context, db *gorm.DB, c GatewayCall) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&c)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		if !c.Completion || c.Status < 200 || c.Status > 299 {
			return nil
		}
		return tx.Model(&Rollout{}).Where("id = ?", c.RolloutID).
			UpdateColumn("llm_calls_observed", gorm.Expr("llm_calls_observed + 1")).Error
	})
}

// Calls lists a rollout's gateway calls in arrival order.
func Calls(ctx context.Context, db *gorm.DB, id string) ([]GatewayCall, error) {
	var out []GatewayCall
	return out, db.WithContext(ctx).Where("rollout_id = ?", id).Order("started_at, id").Find(&out).Error
}
