package flylab

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// FuzzInspectFlyLabStateArgs: inspect_flylab_state takes no arguments but
// the optional page session ones (page_session_id to resume,
// new_page_session with its operation_id to open), so every other body is
// refused by its input schema with an INVALID_INPUT failure envelope,
// without a panic and
// without a write (the service has a database but no Temporal; the
// refusal only reads the caller's session for the envelope).
func FuzzInspectFlyLabStateArgs(f *testing.F) {
	for _, s := range []string{`{"page_session_id":1}`, `{"page_session_id":"x"}`, `{"new_page_session":false}`, `{"new_page_session":true}`, `{"operation_id":"o"}`,
		`{"expected_state_revision":1}`, `[]`, `null`, `"x"`, `1e400`,
		`{"a":` + string(bytes.Repeat([]byte("["), 300)) + `}`, `{`, "\x00\xff", `{"":{}}`, ` { } `} {
		f.Add([]byte(s))
	}
	db, err := models.Open("sqlite:" + filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	if err := models.Migrate(db, slog.New(slog.DiscardHandler)); err != nil {
		f.Fatal(err)
	}
	svc, err := NewService(rest.Deps{DB: db})
	if err != nil {
		f.Fatal(err)
	}
	tool := svc.byName[wf.ToolInspect]
	p := platform.Principal{Role: platform.RoleAgent, Name: "fuzz", CredentialID: "cred_fuzz"}
	f.Fuzz(func(t *testing.T, body []byte) {
		if v, err := tool.schema.ValidateJSON(body); emptyObject(body) || (err == nil && len(v) == 0) {
			return // a valid input: it reads or opens a session (covered end to end)
		}
		env, ok := svc.Call(context.Background(), p, wf.ToolInspect, body, nil)
		if !ok {
			t.Fatal("inspect_flylab_state is not a known tool")
		}
		e, _ := env["error"].(map[string]any)
		if env["ok"] != false || e["code"] != wf.CodeInvalidInput || e["retryable"] != false || e["message"] == "" {
			t.Fatalf("body %q answered %v", body, env)
		}
		if _, ok := e["details"].(map[string]any); !ok {
			t.Fatalf("body %q: error details %v are not an object", body, e["details"])
		}
		if r, _ := env["recovery"].(map[string]any); r["tool"] != wf.ToolInspect {
			t.Fatalf("body %q: recovery %v", body, env["recovery"])
		}
		if _, err := json.Marshal(env); err != nil {
			t.Fatalf("body %q: envelope does not encode: %v", body, err)
		}
	})
}

// emptyObject reports whether body is what the schema accepts: an empty
// JSON object (or nothing, which the service reads as one).
func emptyObject(body []byte) bool {
	if len(body) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(body))
	if d.Decode(&m) != nil || m == nil || len(m) != 0 {
		return false
	}
	_, err := d.Token()
	return err != nil // nothing after the object
}
