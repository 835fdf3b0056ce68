package flywheel_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestLocatedSecrets_AForgedLocatorOrAnotherRolloutsSecretGetsNothing
// plays a holder of rollout A's secrets against rollout B, now that a
// lookup by key or token goes by the lease locator the secret ends with:
// A's LLM token re-pointed at B's locator, or stripped of its locator,
// resolves to nothing (401); A's token with B's api key, and A's api key
// on B's heartbeat, are told apart as another rollout's (403); A's api
// key re-pointed at B's locator is unknown there (401). The hash stored
// is the SHA-256 of the whole key, as api replicas of the previous
// release compute it; every lease a claim grants keeps its locator, and
// the lease history keeps no full index on either secret hash.
func TestLocatedSecrets_AForgedLocatorOrAnotherRolloutsSecretGetsNothing(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		now := time.Now()
		a := enqueue(t, db, now.Add(time.Hour), 3)
		b := enqueue(t, db, now.Add(time.Hour), 3)
		ga, gb := claimOne(t, db, now, time.Minute), claimOne(t, db, now, time.Minute)
		if ga.Rollout.ID != a || gb.Rollout.ID != b {
			t.Fatalf("claimed %s then %s; want %s then %s", ga.Rollout.ID, gb.Rollout.ID, a, b)
		}
		hist, err := fw.LeaseHistory(ctx, db, a)
		if err != nil || len(hist) != 1 {
			t.Fatalf("A's lease history: %+v, %v", hist, err)
		}
		locA := hist[0].Locator
		if !strings.HasPrefix(locA, fw.LocatorPrefix) || !strings.HasSuffix(ga.APIKey, "."+locA) || !strings.HasSuffix(ga.LLMToken, "."+locA) {
			t.Fatalf("A's lease locator %q; api key %q and llm token %q must end with it", locA, ga.APIKey, ga.LLMToken)
		}
		if sum := sha256.Sum256([]byte(ga.APIKey)); hist[0].APIKeyHash != hex.EncodeToString(sum[:]) {
			t.Fatal("the stored api key hash is not the SHA-256 of the whole key, as the previous release checks it")
		}
		if l, err := fw.ResolveGateway(ctx, db, ga.LLMToken, ga.APIKey, now); err != nil || l.RolloutID != a {
			t.Fatalf("A's own llm_url: %+v, %v", l, err)
		}
		tokenA, _, _ := strings.Cut(ga.LLMToken, ".")
		keyA, _, _ := strings.Cut(ga.APIKey, ".")
		_, locB, _ := strings.Cut(gb.APIKey, ".")
		for name, c := range map[string]struct {
			token, key string
			want       error
		}{
			"A's token re-pointed at B":         {tokenA + "." + locB, gb.APIKey, fw.ErrUnknownKey},
			"A's token re-pointed, A's key":     {tokenA + "." + locB, ga.APIKey, fw.ErrUnknownKey},
			"A's token stripped of its locator": {tokenA, ga.APIKey, fw.ErrUnknownKey},
			"A's token with B's api key":        {ga.LLMToken, gb.APIKey, fw.ErrForeignKey},
		} {
			if l, err := fw.ResolveGateway(ctx, db, c.token, c.key, now); !errors.Is(err, c.want) {
				t.Fatalf("%s: %+v, %v; want %v", name, l, err, c.want)
			}
		}
		if _, _, err := fw.Heartbeat(ctx, db, fw.Holder{RolloutID: b, APIKey: ga.APIKey, LeaseToken: ga.LeaseToken}, now); !errors.Is(err, fw.ErrForeignKey) {
			t.Fatalf("A's api key on B's heartbeat: %v, want ErrForeignKey", err)
		}
		if _, _, err := fw.Heartbeat(ctx, db, fw.Holder{RolloutID: b, APIKey: keyA + "." + locB, LeaseToken: ga.LeaseToken}, now); !errors.Is(err, fw.ErrUnknownKey) {
			t.Fatalf("A's api key re-pointed at B, on B's heartbeat: %v, want ErrUnknownKey", err)
		}
		if _, _, err := fw.Heartbeat(ctx, db, fw.Holder{RolloutID: "ro_unknown", APIKey: ga.APIKey, LeaseToken: ga.LeaseToken}, now); !errors.Is(err, fw.ErrForeignKey) {
			t.Fatalf("A's api key on an unknown rollout: %v, want ErrForeignKey", err)
		}
		if _, _, err := fw.Heartbeat(ctx, db, fw.Holder{RolloutID: a, APIKey: ga.APIKey, LeaseToken: ga.LeaseToken}, now); err != nil {
			t.Fatalf("A's own heartbeat: %v", err)
		}
		var unlocated int64
		if err := db.Model(&fw.Lease{}).Where("locator = ''").Count(&unlocated).Error; err != nil || unlocated != 0 {
			t.Fatalf("leases granted by claims without a locator: %d, %v", unlocated, err)
		}
		for _, index := range []string{"idx_flywheel_leases_api_key", "idx_flywheel_leases_llm_token_hash"} {
			if db.Migrator().HasIndex("flywheel_leases", index) {
				t.Fatalf("flywheel_leases still has the full index %s", index)
			}
		}
		for _, index := range []string{"idx_flywheel_leases_locator", "idx_flywheel_leases_legacy_api_key", "idx_flywheel_leases_legacy_llm_token"} {
			if !db.Migrator().HasIndex("flywheel_leases", index) {
				t.Fatalf("flywheel_leases lacks the index %s", index)
			}
		}
	})
}
