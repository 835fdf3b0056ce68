package flywheel_test

import (
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models"
	fw "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/migrate"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestClaim_AKeyTakesOnlyTheRolloutsItsOwnerAllows(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		owners := map[string]string{
			"p1": fw.ProjectOwner("p1"), "p2": fw.ProjectOwner("p2"), "p4": fw.ProjectOwner("p4"), "keyD": fw.KeyOwner("credD"),
			"keyF": fw.KeyOwner("credF"), "open": fw.OwnerUnrestricted,
		}
		ids := map[string]string{}
		for name, owner := range owners {
			id := fw.NewRolloutID()
			if _, _, err := fw.Enqueue(ctx, db, fw.NewRollout{ID: id, Owner: owner, TurnInput: name, DeadlineAt: time.Now().Add(time.Hour), MaxAttempts: 3}); err != nil {
				t.Fatal(err)
			}
			ids[id] = name
		}
		// Each claims in turn and takes everything it may of what is left.
		for _, tc := range []struct {
			who  fw.Claimant
			want string
		}{
			{fw.Claimant{CredentialID: "credA", Projects: []string{"p1"}}, "p1"},
			{fw.Claimant{CredentialID: "credB", Projects: []string{"p2", "p3"}}, "p2"},
			{fw.Claimant{CredentialID: "credD", Projects: []string{"p9"}}, "keyD"},
			{fw.Claimant{CredentialID: "credF"}, "keyF open"},
			{fw.Claimant{CredentialID: "credAll", AllProjects: true}, "p4"},
			{fw.Claimant{CredentialID: "credE"}, ""},
		} {
			gs, err := fw.Claim(ctx, db, tc.who, 64, time.Minute, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range gs {
				got = append(got, ids[g.Rollout.ID])
			}
			sort.Strings(got)
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("%+v claimed %v, want only %q", tc.who, got, tc.want)
			}
		}
	})
}

func TestTurns_KeyedByOwnerAndADifferentBodyConflicts(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		turn := func(owner, sum string) []fw.Turn {
			return []fw.Turn{{Owner: owner, AgentID: "a", TurnID: "t1", BodySHA256: sum, CredentialID: "c"}}
		}
		if acc, dup, err := fw.InsertTurns(ctx, db, turn("key:B", "bbbb")); err != nil || acc != 1 || dup != 0 {
			t.Fatalf("B first: %d %d %v", acc, dup, err)
		}
		if acc, dup, err := fw.InsertTurns(ctx, db, turn("key:A", "aaaa")); err != nil || acc != 1 || dup != 0 {
			t.Fatalf("A's own turn must be stored, not dropped as B's duplicate: %d %d %v", acc, dup, err)
		}
		if acc, dup, err := fw.InsertTurns(ctx, db, turn("key:A", "aaaa")); err != nil || acc != 0 || dup != 1 {
			t.Fatalf("replay: %d %d %v", acc, dup, err)
		}
		_, _, err := fw.InsertTurns(ctx, db, append(turn("key:A", "cccc"), fw.Turn{Owner: "key:A", AgentID: "a", TurnID: "t2", CredentialID: "c"}))
		var conflict *fw.TurnConflictError
		if !errors.As(err, &conflict) || len(conflict.Conflicts) != 1 || conflict.Conflicts[0].StoredSHA256 != "aaaa" || conflict.Conflicts[0].ReceivedSHA256 != "cccc" {
			t.Fatalf("want a conflict naming both digests, got %v", err)
		}
		if _, err := fw.GetTurn(ctx, db, "key:A", "a", "t2"); !errors.Is(err, fw.ErrNotFound) {
			t.Fatalf("a conflicting batch stores nothing: %v", err)
		}
		if _, err := fw.GetTurn(ctx, db, "", "a", "t1"); !errors.Is(err, fw.ErrAmbiguousTurn) {
			t.Fatalf("two owners' t1 without an owner named: %v", err)
		}
		if got, err := fw.GetTurn(ctx, db, "key:A", "a", "t1"); err != nil || got.BodySHA256 != "aaaa" {
			t.Fatalf("A's t1: %+v %v", got, err)
		}
	})
}

// TestMigration_OwnersKeepsStoredTurnsAndRollouts runs the migrations up to
// the one before owners, stores a turn and a rollout the old way, then runs
// the rest: the turn is owned by the key that posted it and the rollout is
// unrestricted.
func TestMigration_OwnersKeepsStoredTurnsAndRollouts(t *testing.T) {
	urls := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "m.db")}
	if u := modelstest.SchemaURL(t); u != "" {
		urls["postgres"] = u
	}
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			db, err := models.Open(url)
			if err != nil {
				t.Fatal(err)
			}
			if sqlDB, err := db.DB(); err == nil {
				t.Cleanup(func() { _ = sqlDB.Close() }) // test cleanup
			}
			all := fw.Migrations()
			var before []migrate.Migration
			for _, m := range all {
				if m.ID < "2026120108" {
					before = append(before, m)
				}
			}
			if _, err := migrate.Run(db, before); err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			if err := db.Exec("INSERT INTO flywheel_turns (agent_id, turn_id, tool_calls_omitted_count, credential_id, received_at) VALUES ('a', 't1', 0, 'cred1', ?)", now).Error; err != nil {
				t.Fatal(err)
			}
			if err := db.Exec("INSERT INTO flywheel_rollouts (id, status, turn_input, deadline_at, max_attempts, created_at, updated_at) VALUES ('ro_old', 'queued', 'x', ?, 3, ?, ?)", now.Add(time.Hour), now, now).Error; err != nil {
				t.Fatal(err)
			}
			if _, err := migrate.Run(db, all); err != nil {
				t.Fatal(err)
			}
			turn, err := fw.GetTurn(ctx, db, fw.KeyOwner("cred1"), "a", "t1")
			if err != nil || turn.CredentialID != "cred1" {
				t.Fatalf("migrated turn: %+v %v", turn, err)
			}
			r, err := fw.GetRollout(ctx, db, "ro_old")
			if err != nil || r.Owner != fw.OwnerUnrestricted {
				t.Fatalf("migrated rollout: %+v %v", r, err)
			}
			if acc, _, err := fw.InsertTurns(ctx, db, []fw.Turn{{Owner: fw.KeyOwner("cred2"), AgentID: "a", TurnID: "t1", CredentialID: "cred2"}}); err != nil || acc != 1 {
				t.Fatalf("another key's t1 after the migration: %d %v", acc, err)
			}
		})
	}
}
