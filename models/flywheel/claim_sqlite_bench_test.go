package flywheel

import (
	"testing"
	"time"

	"gorm.io/gorm"
)

// BenchmarkClaim_SQLite isolates the database half of a claim on the dev
// database (SQLite in WAL mode on one connection, as models.Open sets it
// up): 512 queued rollouts leased in sequential batches of 16, by the path
// Claim takes there ("batched": four statements a claim) and by the path
// it took before ("row-by-row": an UPDATE and two INSERTs per rollout).
// The variants take turns, each round led by the next. Reports
// <variant>-claims/s and <variant>-cpu-us (this process's CPU per leased
// rollout; SQLite runs in it).
//
//	go test ./models/flywheel -run '^$' -bench Claim_SQLite -benchtime 5x
func BenchmarkClaim_SQLite(b *testing.B) {
	db := benchSQLite(b)
	leaseAll(b, db, 0, nil) // migrates
	claimInTurns(b, db, []*claimVariant{{name: "batched", claim: claimSQLite}, {name: "row-by-row", claim: claimRowByRow}},
		true, "-cpu-us")
}

// claimRowByRow is the SQLite claim as it was (the bench's reference): the
// candidates read whole, then an UPDATE, a lease INSERT and a notice
// INSERT for each.
func claimRowByRow(tx *gorm.DB, who Claimant, max int, lease time.Duration, now time.Time) ([]Grant, error) {
	var rows []Rollout
	if err := who.scope(tx.Where("status = ? AND deadline_at > ?", StatusQueued, now)).Order("created_at, id").Limit(max).Find(&rows).Error; err != nil {
		return nil, err
	}
	var grants []Grant
	for _, r := range rows {
		expires := now.Add(lease)
		if expires.After(r.DeadlineAt) {
			expires = r.DeadlineAt
		}
		g := Grant{LeaseToken: newSecret(LeaseTokenPrefix), APIKey: newSecret(APIKeyPrefix), LLMToken: newSecret(LLMTokenPrefix), ExpiresAt: expires}
		res := tx.Model(&Rollout{}).Where("id = ? AND status = ? AND lease_epoch = ?", r.ID, StatusQueued, r.LeaseEpoch).
			Updates(map[string]any{
				"status": StatusLeased, "lease_epoch": r.LeaseEpoch + 1,
				"lease_token_hash": Hash(g.LeaseToken), "api_key_hash": Hash(g.APIKey), "llm_token_hash": Hash(g.LLMToken),
				"lease_seconds": lease.Seconds(), "lease_expires_at": expires, "lease_heartbeats": 0, "updated_at": now,
				"lease_granted_at": now, "lease_granted_expiry": expires, "llm_calls_observed": 0,
			})
		if res.Error != nil || res.RowsAffected != 1 {
			return nil, res.Error
		}
		l := Lease{RolloutID: r.ID, Epoch: r.LeaseEpoch + 1, APIKeyHash: Hash(g.APIKey), LLMTokenHash: Hash(g.LLMToken), ClaimedBy: who.CredentialID, GrantedAt: now, ExpiresAt: expires}
		if err := tx.Create(&l).Error; err != nil {
			return nil, err
		}
		due, _ := GrantNoticeDue(now, expires, lease)
		if err := insertNotice(tx, Notice{RolloutID: r.ID, Epoch: l.Epoch, Kind: NoticeGrant, ExpiresAt: &expires, DueAt: due, CreatedAt: now}); err != nil {
			return nil, err
		}
		g.Rollout = r
		grants = append(grants, g)
	}
	return grants, nil
}
