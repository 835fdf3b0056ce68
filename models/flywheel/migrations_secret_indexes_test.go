package flywheel

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestMigrateDropRolloutSecretIndexes_HeldLeaseKeepsItsLLMURL: a lease
// held across the upgrade, whose history row predates the history's LLM
// token, still resolves at the gateway afterwards (the token is copied
// from its rollout), also after every later migration; an ended lease's
// row is not given the next lease's token; and the rollouts table keeps
// no index on either secret hash.
func TestMigrateDropRolloutSecretIndexes_HeldLeaseKeepsItsLLMURL(t *testing.T) {
	t.Parallel()
	db := openUnmigrated(t)
	next := migrateUpTo(t, db, "2026120512_flywheel_drop_rollout_secret_indexes")
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	deadline, expires := now.Add(time.Hour), now.Add(time.Minute)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO flywheel_rollouts (id, status, turn_input, deadline_at, max_attempts, lease_epoch,
				api_key_hash, llm_token_hash, lease_token_hash, lease_expires_at)
			VALUES ('held', 'leased', 'x', ?, 3, 2, ?, ?, 't', ?)`,
			[]any{deadline, Hash("key-2"), Hash("llm-2"), expires}},
		{`INSERT INTO flywheel_leases (rollout_id, epoch, api_key_hash, claimed_by, granted_at, expires_at)
			VALUES ('held', 1, ?, 'c', ?, ?), ('held', 2, ?, 'c', ?, ?)`,
			[]any{Hash("key-1"), now.Add(-time.Hour), now.Add(-50 * time.Minute), Hash("key-2"), now, expires}},
	} {
		if err := db.Exec(stmt.sql, stmt.args...).Error; err != nil {
			t.Fatal(err)
		}
	}
	if err := next.Up(db); err != nil {
		t.Fatal(err)
	}
	migrateRest(t, db, next.ID) // and every upgrade after it
	got, err := ResolveGateway(context.Background(), db, "llm-2", "key-2", now)
	if err != nil || got.RolloutID != "held" || got.Epoch != 2 {
		t.Fatalf("the held lease's llm_url after the upgrade: %+v, %v; want held at epoch 2", got, err)
	}
	var firstToken string
	if err := db.Raw("SELECT llm_token_hash FROM flywheel_leases WHERE rollout_id = 'held' AND epoch = 1").Scan(&firstToken).Error; err != nil {
		t.Fatal(err)
	}
	if firstToken != "" {
		t.Fatalf("the ended first lease was given a token: %q", firstToken)
	}
	if _, _, err := Heartbeat(context.Background(), db, Holder{RolloutID: "another", APIKey: "key-2", LeaseToken: "t"}, now); !errors.Is(err, ErrForeignKey) {
		t.Fatalf("the held lease's api key (minted without a locator) on another rollout: %v, want ErrForeignKey", err)
	}
	if _, err := ResolveGateway(context.Background(), db, "llm-unknown", "key-2", now); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("an unknown token: %v, want ErrUnknownKey", err)
	}
	for _, index := range []string{"idx_flywheel_rollouts_api_key", "idx_flywheel_rollouts_llm_token"} {
		if db.Migrator().HasIndex("flywheel_rollouts", index) {
			t.Fatalf("flywheel_rollouts still has %s", index)
		}
	}
}
