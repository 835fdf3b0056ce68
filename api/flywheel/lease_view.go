package flywheel

import (
	"time"

	models "github.com/gatehouse/gatehouse/models/flywheel"
)

// LeaseView is one lease of a rollout as an operator reads it in
// lease_history: who held it and how it ended, never the hashes of its
// api key or llm_url token nor their locator (secrets' fingerprints stay
// in the database).
type LeaseView struct {
	Epoch      int64      `json:"epoch"`
	ClaimedBy  string     `json:"claimed_by"`
	GrantedAt  time.Time  `json:"granted_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	Heartbeats int64      `json:"heartbeats"`
	EndedAt    *time.Time `json:"ended_at"`
	EndReason  *string    `json:"end_reason"`
	LLMCalls   int64      `json:"llm_calls"`
}

// leaseViews renders a rollout's leases in epoch order.
func leaseViews(ls []models.Lease) []LeaseView {
	out := make([]LeaseView, 0, len(ls))
	for _, l := range ls {
		out = append(out, LeaseView{Epoch: l.Epoch, ClaimedBy: l.ClaimedBy, GrantedAt: l.GrantedAt, ExpiresAt: l.ExpiresAt,
			Heartbeats: l.Heartbeats, EndedAt: l.EndedAt, EndReason: l.EndReason, LLMCalls: l.LLMCalls})
	}
	return out
}
