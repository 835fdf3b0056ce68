package flylab

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/platform"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// A tool call is cancelled in two ways, and both reach the session
// workflow as a CancelSignal naming the call, which aborts it when it has
// not committed yet (workflows/flylab session_cancel.go):
//   - the caller goes away (a dropped connection, an HTTP client's
//     cancelled request): the api replica holding the call signals;
//   - an MCP client sends notifications/cancelled: on a stateless
//     endpoint behind a load balancer it may reach any replica, so the
//     replica that receives it signals the caller's session with the
//     call's identity, its credential and JSON-RPC request id.

// mcpCallHeader carries a tools/call's JSON-RPC id from cancelRelay to the
// tool handler; a client's own value is always removed first.
const mcpCallHeader = "X-Gatehouse-Mcp-Request-Id"

// cancelTimeout bounds the signal and the wait for the outcome of a call
// whose caller went away.
const cancelTimeout = 30 * time.Second

type callIDKey struct{}

// withCallID names the call ctx carries, for a later CancelSignal.
func withCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// callIDFrom is the call's identity, or a fresh one for a caller that
// cannot name its call.
func callIDFrom(ctx context.Context) string {
	if id, ok := ctx.Value(callIDKey{}).(string); ok && id != "" {
		return id
	}
	return "call/" + randomHex(12)
}

// mcpCallID is the identity of an MCP call: the credential and the
// request id, as the client will name it in notifications/cancelled.
func mcpCallID(credentialID string, requestID json.RawMessage) string {
	return credentialID + "/mcp/" + string(bytes.TrimSpace(requestID))
}

// rpcPeek is the part of a JSON-RPC message cancelRelay reads.
type rpcPeek struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// maxPeekBytes is the largest body cancelRelay reads; the SDK refuses
// larger ones itself.
const maxPeekBytes = 4 << 20

// cancelRelay sits between the bearer check and the MCP handler: it hands
// each tools/call's request id to the handler and turns a
// notifications/cancelled into a CancelSignal for the named call.
func (s *Service) cancelRelay(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(mcpCallHeader)
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPeekBytes+1))
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		var msg rpcPeek
		if err != nil || len(body) > maxPeekBytes || json.Unmarshal(body, &msg) != nil {
			next.ServeHTTP(w, r)
			return
		}
		switch msg.Method {
		case "tools/call":
			if len(msg.ID) > 0 {
				r.Header.Set(mcpCallHeader, string(msg.ID))
			}
		case "notifications/cancelled":
			if p, ok := principalOfRequest(r); ok && len(msg.Params.RequestID) > 0 {
				callID := mcpCallID(p.CredentialID, msg.Params.RequestID)
				go s.cancelCallsOf(context.WithoutCancel(r.Context()), p, callID)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// principalOfRequest is the principal the bearer check put in r.
func principalOfRequest(r *http.Request) (platform.Principal, bool) {
	info := auth.TokenInfoFromContext(r.Context())
	if info == nil {
		return platform.Principal{}, false
	}
	p, ok := info.Extra[principalExtra].(platform.Principal)
	return p, ok && p.CredentialID != ""
}

// cancelCallsOf signals the principal's session that callID is cancelled.
// A session without a running workflow has no call to cancel.
func (s *Service) cancelCallsOf(ctx context.Context, p platform.Principal, callID string) {
	ctx, cancel := context.WithTimeout(ctx, cancelTimeout)
	defer cancel()
	row, err := models.SessionOf(ctx, s.deps.DB, p.CredentialID)
	if err != nil {
		return
	}
	s.signalCancel(ctx, row.ID, callID)
}

// signalCancel sends the CancelSignal for callID to a session workflow.
func (s *Service) signalCancel(ctx context.Context, sessionID, callID string) {
	err := s.deps.Temporal.SignalWorkflow(ctx, wf.SessionWorkflowID(sessionID), "", wf.CancelSignal, wf.CancelRequest{CallID: callID})
	var gone *serviceerror.NotFound
	if err != nil && !errors.As(err, &gone) {
		s.deps.Log.Warn("flylab: cancel not delivered", "session", sessionID, "call", callID, "error", err)
	}
}

// abandoned is what happens to a call whose caller went away: the session
// is told to abort it, and the outcome is read (an abort, or the commit
// the cancel came too late for). An update Temporal never received
// changed nothing: it answers as aborted.
func (s *Service) abandoned(ctx context.Context, sessionID string, req wf.ToolRequest, updateID string) (wf.ToolOutcome, error) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	s.signalCancel(bctx, sessionID, req.CallID)
	var out wf.ToolOutcome
	h := s.deps.Temporal.GetWorkflowUpdateHandle(client.GetWorkflowUpdateHandleOptions{
		WorkflowID: wf.SessionWorkflowID(sessionID), UpdateID: updateID})
	err := h.Get(bctx, &out)
	var missing *serviceerror.NotFound
	if errors.As(err, &missing) {
		return wf.ToolOutcome{Failure: &wf.ToolFailure{Code: wf.CodeAborted, Retryable: true,
			Message: req.Tool + " was cancelled before it reached the session; nothing changed",
			Details: map[string]any{"name": wf.AbortErrorName}}, CreatedArtifactIDs: []string{}}, nil
	}
	return out, err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
