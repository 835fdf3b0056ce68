package flylab

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse/contracts"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// inspectInputSchema extends the contract's argument-free
// inspect_flylab_state with page sessions (missions): with no argument it
// reads the key's current page session, as the contract has it;
// new_page_session opens a fresh one (revision 1, nothing inherited) and
// page_session_id resumes an earlier one. Either makes that session the
// current one. Every other argument is still refused.
var inspectInputSchema = json.RawMessage(`{
 "type": "object",
 "properties": {
  "page_session_id": {"type": "string", "minLength": 9, "maxLength": 80,
   "description": "Optional: resume this earlier page session of the same API key; it becomes the current one."},
  "new_page_session": {"type": "boolean", "const": true,
   "description": "Optional: open a new page session (a fresh mission); it becomes the current one. Earlier sessions stay readable by page_session_id. Requires operation_id."},
  "operation_id": {"type": "string", "minLength": 1, "maxLength": 120,
   "description": "With new_page_session: stable caller-generated ID of the opening. A retry with the same ID opens no second session: it answers the session the first opened."}
 },
 "required": [],
 "dependentRequired": {"new_page_session": ["operation_id"], "operation_id": ["new_page_session"]},
 "additionalProperties": false
}`)

// withPageSessionArgs gives the inspect tool its extended schema.
func withPageSessionArgs(t *Tool) error {
	schema, err := contracts.CompileJSON("https://gatehouse.local/flylab/tools/"+t.Name+"/input.json", inspectInputSchema)
	if err != nil {
		return err
	}
	t.InputSchema, t.schema = inspectInputSchema, schema
	return nil
}

// openSession picks the page session an inspect reads: a new one, a
// resumed one, or the current one.
func (s *Service) openSession(ctx context.Context, p platform.Principal, args map[string]any) (wf.SessionState, *wf.ToolFailure) {
	id, _ := args["page_session_id"].(string)
	fresh, _ := args["new_page_session"].(bool)
	switch {
	case id != "" && fresh:
		return wf.SessionState{}, invalidInput("give page_session_id (resume) or new_page_session (open), not both", "/new_page_session", nil)
	case fresh:
		// The id is derived from the key and the opening's operation_id,
		// so a retried opening (a lost answer, two replicas) creates one
		// session and makes it current again.
		opID, _ := args["operation_id"].(string)
		now := time.Now().UTC()
		row := models.Session{ID: openedSessionID(p.CredentialID, opID), OwnerCredentialID: p.CredentialID, OwnerName: p.Name,
			SelectedAt: &now, CreatedAt: now}
		if err := models.CreateOnce(ctx, s.deps.DB, &row); err != nil {
			return wf.SessionState{}, unavailable(err)
		}
		if err := models.SelectSession(ctx, s.deps.DB, row.ID, now); err != nil {
			return wf.SessionState{}, unavailable(err)
		}
		return s.sessionState(ctx, row.ID)
	case id != "":
		if _, err := s.ownedSession(ctx, p, id); errors.Is(err, models.ErrNotFound) {
			return wf.SessionState{}, &wf.ToolFailure{Code: wf.CodeNotFound, Message: "page_session_id is not a session of this API key",
				Details: map[string]any{"page_session_id": id}}
		} else if err != nil {
			return wf.SessionState{}, unavailable(err)
		}
		if err := models.SelectSession(ctx, s.deps.DB, id, time.Now()); err != nil {
			return wf.SessionState{}, unavailable(err)
		}
		return s.sessionState(ctx, id)
	}
	st, err := s.ensureSession(ctx, p)
	if err != nil {
		return st, unavailable(err)
	}
	return st, nil
}

func (s *Service) sessionState(ctx context.Context, id string) (wf.SessionState, *wf.ToolFailure) {
	st, err := s.state(ctx, id)
	if err != nil {
		return st, unavailable(err)
	}
	return st, nil
}

// failureContext is the page session and revision a refused call reports:
// the session it names when that is the caller's (for inspect, else the
// caller's current one), read briefly; "" and 0 when there is none.
func (s *Service) failureContext(ctx context.Context, p platform.Principal, tool string, raw []byte) (string, int) {
	var args struct {
		PageSessionID any `json:"page_session_id"`
	}
	_ = json.Unmarshal(raw, &args)
	id, _ := args.PageSessionID.(string)
	if id != "" {
		if _, err := s.ownedSession(ctx, p, id); err != nil {
			return "", 0
		}
	} else if tool == wf.ToolInspect {
		row, err := models.SessionOf(ctx, s.deps.DB, p.CredentialID)
		if err != nil {
			return "", 0
		}
		id = row.ID
	} else {
		return "", 0
	}
	return id, s.revisionForFailure(ctx, id)
}
