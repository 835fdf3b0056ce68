// Package flylab serves the FlyLab tool contract (flylab-webmcp-contracts.v3)
// over MCP (Streamable HTTP) and plain JSON, the published documents, and
// the operator's approve/reject/list endpoints. Every call is validated
// against the contract's input schema first; mutations go to the session
// workflow as a Temporal Update; answers are flylab.tool-result.v3
// envelopes.
package flylab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/contracts"
	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// ResultVersion is the envelope contract.
const ResultVersion = "flylab.tool-result.v3"

// Tool is one contract tool with its compiled input schema.
type Tool struct {
	contracts.FlyLabTool
	schema *contracts.Schema
	output outputContract
}

type outputContract struct {
	RequiredDataFields []string `json:"required_data_fields"`
	ProducedArtifacts  []string `json:"produced_artifacts"`
	ScientificPaths    []string `json:"scientific_paths"`
	OperationalPaths   []string `json:"operational_paths"`
}

// Service answers FlyLab tool calls.
type Service struct {
	deps     rest.Deps
	contract *contracts.FlyLabContract
	policy   map[string]any
	tools    []*Tool
	byName   map[string]*Tool
	// inflight joins concurrent copies of one operation_id (coalesce.go).
	inflight coalescer
}

// ProgressFunc receives run progress (runs done of total) while a tool runs.
type ProgressFunc func(done, total float64)

// NewService parses and compiles the contract.
func NewService(deps rest.Deps) (*Service, error) {
	c, err := contracts.ParseFlyLab()
	if err != nil {
		return nil, err
	}
	schemas, err := contracts.CompileFlyLabInputs(c)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Provenance map[string]any `json:"provenance_contract"`
	}
	if err := json.Unmarshal(c.Raw, &raw); err != nil {
		return nil, err
	}
	s := &Service{deps: deps, contract: c, policy: raw.Provenance, byName: map[string]*Tool{}}
	for _, t := range c.Tools {
		tool := &Tool{FlyLabTool: t, schema: schemas[t.Name]}
		if t.Name == wf.ToolInspect {
			if err := withPageSessionArgs(tool); err != nil {
				return nil, err
			}
		}
		if err := json.Unmarshal(t.OutputContract, &tool.output); err != nil {
			return nil, fmt.Errorf("flylab tool %s output contract: %w", t.Name, err)
		}
		s.tools = append(s.tools, tool)
		s.byName[t.Name] = tool
	}
	return s, nil
}

// Tools lists the contract's tools in order.
func (s *Service) Tools() []*Tool { return s.tools }

// Call runs one tool for a principal and returns its envelope; ok is false
// for an unknown tool name.
func (s *Service) Call(ctx context.Context, p platform.Principal, name string, raw []byte, progress ProgressFunc) (map[string]any, bool) {
	tool, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	violations, err := tool.schema.ValidateJSON(raw)
	if err != nil {
		sid, rev := s.failureContext(ctx, p, name, raw)
		return s.failure(name, sid, rev, invalidInput("arguments are not JSON", "", nil)), true
	}
	if len(violations) > 0 {
		sid, rev := s.failureContext(ctx, p, name, raw)
		return s.failure(name, sid, rev, invalidInput("arguments break the input schema: "+violations[0].Message,
			violations[0].Path, violations)), true
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		sid, rev := s.failureContext(ctx, p, name, raw)
		return s.failure(name, sid, rev, invalidInput("arguments are not an object", "", nil)), true
	}
	if name == wf.ToolInspect {
		return s.inspect(ctx, p, args), true
	}
	return s.mutate(ctx, p, tool, raw, args, progress), true
}

func invalidInput(message, pointer string, violations []contracts.Violation) *wf.ToolFailure {
	d := map[string]any{"pointer": pointer}
	if violations != nil {
		d["violations"] = violations
	}
	return &wf.ToolFailure{Code: wf.CodeInvalidInput, Message: message, Details: d}
}

// inspect returns the caller's current page session (creating it on first
// call), or opens a new one, or resumes one by id (inspect_sessions.go).
func (s *Service) inspect(ctx context.Context, p platform.Principal, args map[string]any) map[string]any {
	st, f := s.openSession(ctx, p, args)
	if f != nil {
		raw, _ := json.Marshal(args)
		sid, rev := s.failureContext(ctx, p, wf.ToolInspect, raw)
		return s.failure(wf.ToolInspect, sid, rev, f)
	}
	data := map[string]any{"page_session_id": st.SessionID, "agent_context": s.agentContext(st)}
	return s.success(wf.ToolInspect, st, wf.ToolOutcome{PreviousRevision: st.Revision, Revision: st.Revision,
		CreatedArtifactIDs: []string{}}, "", data)
}

// unavailable is the failure of a call the database or Temporal did not
// answer. Nothing simulated failed, so it is not SIMULATION_UNAVAILABLE:
// the state could not be read or the call's outcome is unknown, which the
// contract calls STALE_STATE, retryable. The recovery (inspect, then the
// same call with the same operation_id) is safe either way; details.store
// names what did not answer.
func unavailable(err error) *wf.ToolFailure {
	return &wf.ToolFailure{Code: wf.CodeStaleState, Retryable: true,
		Message: "FlyLab's state store did not answer (" + storeOf(err) + "); the state is unknown. Call inspect_flylab_state and retry the same call.",
		Details: map[string]any{"cause": err.Error(), "store": storeOf(err), "state_unknown": true}}
}

// storeOf names the store an infrastructure error came from: Temporal's
// service errors say so; anything else reached the database.
func storeOf(err error) string {
	var svcErr serviceerror.ServiceError
	if errors.As(err, &svcErr) || errors.Is(err, context.DeadlineExceeded) {
		return "temporal"
	}
	return "database"
}

// ensureSession finds or creates the principal's session and returns its
// state. It starts no workflow: a session's workflow is started by its
// first mutation, and restarted from the stored snapshot by the first
// mutation after it is gone (resume), so a read never writes.
func (s *Service) ensureSession(ctx context.Context, p platform.Principal) (wf.SessionState, error) {
	// One round trip on the common path: the current session with its
	// snapshot (session_read.go).
	read, err := models.ReadCurrent(ctx, s.deps.DB, p.CredentialID, time.Now())
	if errors.Is(err, models.ErrNotFound) {
		row := models.Session{ID: firstSessionID(p.CredentialID), OwnerCredentialID: p.CredentialID, OwnerName: p.Name}
		if err := models.CreateOnce(ctx, s.deps.DB, &row); err != nil {
			return wf.SessionState{}, err
		}
		read, err = models.ReadCurrent(ctx, s.deps.DB, p.CredentialID, time.Now())
	}
	if err != nil {
		return wf.SessionState{}, err
	}
	var q StateQuerier
	if s.deps.Temporal != nil {
		q = s.deps.Temporal
	}
	return readSession(ctx, s.deps.DB, q, read)
}

// state reads a session: from its workflow while it exists, from the
// database once it is gone (session_read.go).
func (s *Service) state(ctx context.Context, sessionID string) (wf.SessionState, error) {
	var q StateQuerier
	if s.deps.Temporal != nil {
		q = s.deps.Temporal
	}
	return ReadSession(ctx, s.deps.DB, q, sessionID)
}

// resume starts the session workflow from the session's latest state when
// no run of it is running: never started, or closed and purged, or
// terminated. A running workflow is left as it is (USE_EXISTING), so two
// api replicas resuming at once start one run, both from the same state.
func (s *Service) resume(ctx context.Context, sessionID string) error {
	st, err := s.state(ctx, sessionID)
	if err != nil {
		return err
	}
	st.Running = ""
	_, err = s.deps.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: wf.SessionWorkflowID(sessionID), TaskQueue: s.deps.Config.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, wf.SessionWorkflow, wf.SessionInput{State: st})
	return err
}

// firstSessionID is the id of a key's first page session, derived from
// the key, so api replicas answering two first inspects at once create
// one session, not two (sessions it opens later get random ids).
func firstSessionID(credentialID string) string {
	sum := sha256.Sum256([]byte("flylab-first-page-session\x00" + credentialID))
	return "session_" + hex.EncodeToString(sum[:8])
}

// openedSessionID is the id of the page session a key opens with
// new_page_session under operationID.
func openedSessionID(credentialID, operationID string) string {
	sum := sha256.Sum256([]byte("flylab-opened-page-session\x00" + credentialID + "\x00" + operationID))
	return "session_" + hex.EncodeToString(sum[:8])
}

// ownedSession returns the session when it belongs to the principal.
func (s *Service) ownedSession(ctx context.Context, p platform.Principal, id string) (models.Session, error) {
	row, err := models.SessionByID(ctx, s.deps.DB, id)
	if err == nil && row.OwnerCredentialID != p.CredentialID {
		return row, models.ErrNotFound
	}
	return row, err
}

// DB exposes the database to the route handlers.
func (s *Service) DB() *gorm.DB { return s.deps.DB }
