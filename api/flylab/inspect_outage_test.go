package flylab

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// downTemporal is a Temporal frontend that does not answer queries.
type downTemporal struct{ client.Client }

func (downTemporal) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, serviceerror.NewUnavailable("frontend down")
}

// TestInspect_OutagesAreNotSimulationUnavailable: when the database or
// Temporal does not answer, inspect_flylab_state fails with the
// contract's retryable STALE_STATE naming the store, not with
// SIMULATION_UNAVAILABLE (nothing was simulated).
func TestInspect_OutagesAreNotSimulationUnavailable(t *testing.T) {
	p := platform.Principal{Role: platform.RoleAgent, Name: "alice", CredentialID: "cred_alice"}
	check := func(t *testing.T, env map[string]any, store string) {
		t.Helper()
		e, _ := env["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		if env["ok"] != false || e["code"] != wf.CodeStaleState || e["retryable"] != true || d["store"] != store {
			t.Fatalf("outage of %s answered %v", store, env)
		}
	}
	t.Run("temporal", func(t *testing.T) {
		db := modelstest.SQLite(t)
		svc, err := NewService(rest.Deps{DB: db, Temporal: downTemporal{}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		env, _ := svc.Call(ctx, p, wf.ToolInspect, []byte(`{}`), nil)
		check(t, env, "temporal")
	})
	t.Run("database", func(t *testing.T) {
		db := modelstest.SQLite(t)
		svc, err := NewService(rest.Deps{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := db.DB()
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.Close()
		env, _ := svc.Call(context.Background(), p, wf.ToolInspect, []byte(`{}`), nil)
		check(t, env, "database")
	})
}

// TestInspect_StoredSessionAnswersWhileTemporalIsDown: a session that
// committed reads from its stored snapshot, so inspect_flylab_state keeps
// answering while Temporal does not, and shows the stored revision.
func TestInspect_StoredSessionAnswersWhileTemporalIsDown(t *testing.T) {
	p := platform.Principal{Role: platform.RoleAgent, Name: "alice", CredentialID: "cred_alice"}
	db := modelstest.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := models.CreateOnce(ctx, db, &models.Session{ID: firstSessionID(p.CredentialID), OwnerCredentialID: p.CredentialID, OwnerName: p.Name}); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(wf.SessionState{SessionID: firstSessionID(p.CredentialID), Owner: p.CredentialID, Revision: 7})
	if err := models.SaveSnapshot(ctx, db, firstSessionID(p.CredentialID), 7, raw); err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(rest.Deps{DB: db, Temporal: downTemporal{}})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := svc.Call(ctx, p, wf.ToolInspect, []byte(`{}`), nil)
	if env["ok"] != true || env["state_revision"] != 7 {
		t.Fatalf("inspect with Temporal down answered %v", env)
	}
}
