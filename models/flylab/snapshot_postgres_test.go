package flylab_test

import (
	"context"
	"errors"
	"testing"

	fl "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

// TestSnapshotWithResult_OnPostgresIsOneStatement: a find's commit stores
// its result and its snapshot in one round trip on PostgreSQL (the
// transaction it replaced sent four), both rows land, and a retry of the
// same commit sends one statement and changes neither row.
func TestSnapshotWithResult_OnPostgresIsOneStatement(t *testing.T) {
	t.Parallel()
	db, n := modelstest.CountedPostgres(t)
	if db == nil {
		t.Skip("needs GATEHOUSE_TEST_DATABASE_URL")
	}
	ctx := context.Background()
	result := fl.ToolResult{Key: "session_p/find_fly_circuits/rev-1/u1", SessionID: "session_p", Tool: "find_fly_circuits", Data: `{"n":1}`}
	for attempt, data := range []string{`{"n":1}`, `{"n":"retried"}`} {
		r := result
		r.Data = data
		n.Store(0)
		if err := fl.SaveSnapshotWithResult(ctx, db, "session_p", 2, []byte(`{"revision":2}`), r); err != nil {
			t.Fatal(err)
		}
		if got := n.Load(); got != 1 {
			t.Fatalf("attempt %d sent %d statements, want 1", attempt, got)
		}
	}
	if raw, err := fl.LoadToolResult(ctx, db, result.Key); err != nil || string(raw) != `{"n":1}` {
		t.Fatalf("stored result %s (%v), want the first write's", raw, err)
	}
	if s, err := fl.LoadSnapshot(ctx, db, "session_p"); err != nil || s.Revision != 2 || s.State != `{"revision":2}` {
		t.Fatalf("stored snapshot %+v (%v)", s, err)
	}
}

// TestSnapshotWithResult_OnPostgresStoresBothOrNeither: a result whose
// snapshot PostgreSQL refuses (a NUL byte in text) is not stored either,
// so the one statement is still all or nothing.
func TestSnapshotWithResult_OnPostgresStoresBothOrNeither(t *testing.T) {
	t.Parallel()
	db := modelstest.Postgres(t)
	if db == nil {
		t.Skip("needs GATEHOUSE_TEST_DATABASE_URL")
	}
	ctx := context.Background()
	result := fl.ToolResult{Key: "session_n/find_fly_circuits/rev-1/u1", SessionID: "session_n", Tool: "find_fly_circuits", Data: `{}`}
	if err := fl.SaveSnapshotWithResult(ctx, db, "session_n", 1, []byte("{\"x\":\"\x00\"}"), result); err == nil {
		t.Fatal("PostgreSQL stored a snapshot with a NUL byte")
	}
	if _, err := fl.LoadToolResult(ctx, db, result.Key); !errors.Is(err, fl.ErrNotFound) {
		t.Fatalf("the result was stored without its snapshot (load: %v)", err)
	}
}
