package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// deferredFind runs find_fly_circuits the way a session deferring its
// result does, and returns the call and its effect.
func deferredFind(t *testing.T, a *Activities, key string) (wf.ToolCall, wf.ToolEffect) {
	t.Helper()
	call := wf.ToolCall{SessionID: "session_d", Tool: wf.ToolFind, Args: json.RawMessage(`{"query":"backward walking"}`),
		ResultKey: key, DeferResult: true}
	effect, err := a.FindCircuits(context.Background(), call)
	if err != nil || effect.Failure != nil || len(effect.CreatedArtifactIDs) != 1 {
		t.Fatalf("find: %v %+v", err, effect)
	}
	return call, effect
}

func TestSaveSession_StoresTheDeferredFindResultWithTheSnapshot(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		a := &Activities{DB: db}
		ctx := context.Background()
		call, effect := deferredFind(t, a, "session_d/find_fly_circuits/rev-2")
		if _, err := models.LoadToolResult(ctx, db, call.ResultKey); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("the deferring find stored its result itself: %v", err)
		}
		raw, _ := json.Marshal(wf.SessionState{SessionID: "session_d", Revision: 2})
		in := wf.StateSnapshot{SessionID: "session_d", Revision: 2, State: raw,
			Result: &wf.DeferredResult{Tool: wf.ToolFind, Key: call.ResultKey, Args: call.Args, ArtifactID: effect.CreatedArtifactIDs[0]}}
		if err := a.SaveSession(ctx, in); err != nil {
			t.Fatal(err)
		}
		stored, err := models.LoadToolResult(ctx, db, call.ResultKey)
		var got science.SearchResult
		if err != nil || json.Unmarshal(stored, &got) != nil || got.DiscoveryDecision.ID != effect.CreatedArtifactIDs[0] {
			t.Fatalf("stored result %.80s (%v), want discovery %s", stored, err, effect.CreatedArtifactIDs[0])
		}
		if row, err := models.LoadSnapshot(ctx, db, "session_d"); err != nil || row.Revision != 2 {
			t.Fatalf("snapshot %+v (%v), want revision 2", row, err)
		}
	})
}

func TestSaveSession_ADeferredResultThatDoesNotReproduceStoresNothing(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		a := &Activities{DB: db}
		ctx := context.Background()
		call, _ := deferredFind(t, a, "session_d/find_fly_circuits/rev-2")
		raw, _ := json.Marshal(wf.SessionState{SessionID: "session_d", Revision: 2})
		in := wf.StateSnapshot{SessionID: "session_d", Revision: 2, State: raw,
			Result: &wf.DeferredResult{Tool: wf.ToolFind, Key: call.ResultKey, Args: call.Args, ArtifactID: "discovery_other"}}
		err := a.SaveSession(ctx, in)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != ErrTypeDeferredResultMismatch || !appErr.NonRetryable() {
			t.Fatalf("save with a result that does not reproduce: %v, want a non-retryable %s", err, ErrTypeDeferredResultMismatch)
		}
		if _, err := models.LoadToolResult(ctx, db, call.ResultKey); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("a result was stored: %v", err)
		}
		if _, err := models.LoadSnapshot(ctx, db, "session_d"); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("a snapshot was stored: %v", err)
		}
	})
}

// TestSaveSession_SnapshotAndResultAreOneTransaction refuses the
// snapshot's insert through a GORM callback, on SQLite, where the two are
// a transaction of two inserts. On PostgreSQL they are one statement, and
// models/flylab's TestSnapshotWithResult_OnPostgresStoresBothOrNeither has
// the server refuse it.
func TestSaveSession_SnapshotAndResultAreOneTransaction(t *testing.T) {
	db := modelstest.SQLite(t)
	ctx := context.Background()
	// The database refuses the snapshot, the second write of the
	// transaction: the result written before it must be gone too.
	refused := errors.New("snapshot refused")
	if err := db.Callback().Create().Before("gorm:create").Register("test:refuse_snapshot", func(tx *gorm.DB) {
		if tx.Statement.Table == (models.SessionSnapshot{}).TableName() {
			_ = tx.AddError(refused)
		}
	}); err != nil {
		t.Fatal(err)
	}
	err := models.SaveSnapshotWithResult(ctx, db, "session_d", 2, []byte(`{}`),
		models.ToolResult{Key: "session_d/k", SessionID: "session_d", Tool: wf.ToolFind, Data: "{}"})
	if !errors.Is(err, refused) {
		t.Fatalf("save: %v, want the refusal", err)
	}
	if _, lerr := models.LoadToolResult(ctx, db, "session_d/k"); !errors.Is(lerr, models.ErrNotFound) {
		t.Fatalf("the result outlived its refused snapshot: %v", lerr)
	}
}
