package flylab

import (
	"context"
	"encoding/json"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

func inspectAs(t *testing.T, svc *Service, p platform.Principal, args map[string]any) map[string]any {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	raw, _ := json.Marshal(args)
	env, ok := svc.Call(context.Background(), p, wf.ToolInspect, raw, nil)
	if !ok {
		t.Fatal("no inspect tool")
	}
	return env
}

// TestInspect_OpensAndResumesPageSessions opens a second page session for
// one key, reads the first again by id, and checks that the current
// session follows the latest open or resume, that another key cannot
// resume it, and that both arguments at once are refused.
func TestInspect_OpensAndResumesPageSessions(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		svc, err := NewService(rest.Deps{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		alice := platform.Principal{Role: platform.RoleAgent, Name: "alice", CredentialID: "cred_alice"}
		first := inspectAs(t, svc, alice, map[string]any{})["page_session_id"]
		if again := inspectAs(t, svc, alice, nil); again["page_session_id"] != first || again["ok"] != true {
			t.Fatalf("inspect without arguments moved from %v to %v", first, again)
		}
		opened := inspectAs(t, svc, alice, map[string]any{"new_page_session": true, "operation_id": "open-2"})
		second := opened["page_session_id"]
		if second == first || opened["ok"] != true || opened["state_revision"] != 1 {
			t.Fatalf("new page session: %v (first %v)", opened, first)
		}
		// A retried opening answers the session the first one opened.
		if retried := inspectAs(t, svc, alice, map[string]any{"new_page_session": true, "operation_id": "open-2"}); retried["page_session_id"] != second {
			t.Fatalf("a retried opening opened %v, want %v again", retried["page_session_id"], second)
		}
		if rows, err := models.SessionsOf(context.Background(), db, alice.CredentialID, 10); err != nil || len(rows) != 2 {
			t.Fatalf("sessions of the key after a retried opening: %d (%v), want 2", len(rows), err)
		}
		if unkeyed := inspectAs(t, svc, alice, map[string]any{"new_page_session": true}); unkeyed["ok"] != false {
			t.Fatalf("an opening without operation_id was accepted: %v", unkeyed)
		}
		if cur := inspectAs(t, svc, alice, nil)["page_session_id"]; cur != second {
			t.Fatalf("current session %v, want the new %v", cur, second)
		}
		if back := inspectAs(t, svc, alice, map[string]any{"page_session_id": first}); back["page_session_id"] != first || back["ok"] != true {
			t.Fatalf("resume: %v", back)
		}
		if cur := inspectAs(t, svc, alice, nil)["page_session_id"]; cur != first {
			t.Fatalf("current session %v after resuming %v", cur, first)
		}
		mallory := platform.Principal{Role: platform.RoleAgent, Name: "mallory", CredentialID: "cred_mallory"}
		stolen := inspectAs(t, svc, mallory, map[string]any{"page_session_id": first})
		if e, _ := stolen["error"].(map[string]any); e["code"] != wf.CodeNotFound || stolen["page_session_id"] != "" {
			t.Fatalf("another key resumed the session: %v", stolen)
		}
		both := inspectAs(t, svc, alice, map[string]any{"page_session_id": first, "new_page_session": true, "operation_id": "open-3"})
		if e, _ := both["error"].(map[string]any); e["code"] != wf.CodeInvalidInput || both["page_session_id"] != first {
			t.Fatalf("both arguments: %v", both)
		}
	})
}

// TestCall_SchemaRefusalCarriesTheCallersSession checks a call refused by
// the input schema reports the session it named and its revision, and
// names no session of another key.
func TestCall_SchemaRefusalCarriesTheCallersSession(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		svc, err := NewService(rest.Deps{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		alice := platform.Principal{Role: platform.RoleAgent, Name: "alice", CredentialID: "cred_alice"}
		sid := inspectAs(t, svc, alice, nil)["page_session_id"].(string)
		raw, _ := json.Marshal(map[string]any{"page_session_id": sid, "expected_state_revision": 1, "query": "x", "bogus": 1})
		env, _ := svc.Call(context.Background(), alice, wf.ToolFind, raw, nil)
		if e, _ := env["error"].(map[string]any); e["code"] != wf.CodeInvalidInput || env["page_session_id"] != sid || env["state_revision"] != 1 {
			t.Fatalf("schema refusal: %v", env)
		}
		bad := inspectAs(t, svc, alice, map[string]any{"bogus": true})
		if bad["page_session_id"] != sid || bad["state_revision"] != 1 {
			t.Fatalf("inspect refusal: %v", bad)
		}
		mallory := platform.Principal{Role: platform.RoleAgent, Name: "mallory", CredentialID: "cred_mallory"}
		env, _ = svc.Call(context.Background(), mallory, wf.ToolFind, raw, nil)
		if env["page_session_id"] != "" || env["state_revision"] != 0 {
			t.Fatalf("a refusal named another key's session: %v", env)
		}
	})
}

// TestInspect_ConcurrentFirstInspectsShareOneSession: replicas answering
// a key's first inspects at once (no session yet) hand out one session.
func TestInspect_ConcurrentFirstInspectsShareOneSession(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		replicas := make([]*Service, 4)
		for i := range replicas {
			svc, err := NewService(rest.Deps{DB: db})
			if err != nil {
				t.Fatal(err)
			}
			replicas[i] = svc
		}
		p := platform.Principal{Role: platform.RoleAgent, Name: "alice", CredentialID: "cred_alice"}
		ids := make(chan any, len(replicas))
		for _, svc := range replicas {
			go func() {
				env, _ := svc.Call(context.Background(), p, wf.ToolInspect, []byte(`{}`), nil)
				ids <- env["page_session_id"]
			}()
		}
		first := <-ids
		for range len(replicas) - 1 {
			if id := <-ids; id != first || id == "" {
				t.Fatalf("concurrent first inspects answered %v and %v", first, id)
			}
		}
	})
}
