package flylab

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// FuzzInspectFlyLabStateArgs: inspect_flylab_state takes no arguments, so
// every body but an empty object is refused by the contract's input schema
// with an INVALID_INPUT failure envelope, without a panic and before any
// database or Temporal access (the service has neither: reaching them
// would panic).
func FuzzInspectFlyLabStateArgs(f *testing.F) {
	for _, s := range []string{`{"page_session_id":"session_x"}`, `{"expected_state_revision":1}`, `[]`, `null`, `"x"`, `1e400`,
		`{"a":` + string(bytes.Repeat([]byte("["), 300)) + `}`, `{`, "\x00\xff", `{"":{}}`, ` { } `} {
		f.Add([]byte(s))
	}
	svc, err := NewService(rest.Deps{})
	if err != nil {
		f.Fatal(err)
	}
	p := platform.Principal{Role: platform.RoleAgent, Name: "fuzz"}
	f.Fuzz(func(t *testing.T, body []byte) {
		if emptyObject(body) {
			return // the one valid input: it reads the session (covered end to end)
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
