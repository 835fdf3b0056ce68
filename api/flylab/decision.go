package flylab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"

	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// DecisionError is an operator decision refused before anything was
// signalled; Status is the HTTP status the REST endpoint answers with.
type DecisionError struct {
	Status  int
	Code    string
	Message string
	Details map[string]any
}

func (e *DecisionError) Error() string { return e.Code + ": " + e.Message }

// Decision is an accepted operator decision.
type Decision struct {
	// Experiment is the record after the decision.
	Experiment models.Experiment
	// SessionRevision is the session's state revision once it shows the decision.
	SessionRevision int
	// Mirrored is false when the workflow was signalled but the records had
	// not caught up within the wait (they will on their own).
	Mirrored bool
}

// Approve opens an experiment's operator gate for exactly protocolHash. It
// is the one operation behind POST /operator/v1/flylab/experiments/:id/approve
// and the console's Approve button.
func (s *Service) Approve(ctx context.Context, operator, experimentID, protocolHash string) (Decision, error) {
	if !hashPattern.MatchString(protocolHash) {
		return Decision{}, &DecisionError{Status: http.StatusUnprocessableEntity, Code: "invalid_input",
			Message: "protocol_hash must be sha256: + 64 hex", Details: map[string]any{"pointer": "/protocol_hash"}}
	}
	row, err := s.awaitingDecision(ctx, experimentID, protocolHash)
	if err != nil {
		return Decision{}, err
	}
	id, err := s.recordOperatorDecision(ctx, row, models.StatusApproved, operator, "")
	if err != nil {
		return Decision{}, err
	}
	return s.signalAndWait(ctx, row, wf.ApproveSignal,
		wf.Approve{ProtocolHash: protocolHash, Operator: operator, DecisionID: id}, models.StatusApproved)
}

// Reject closes the gate with a reason. shownHash, when not empty, must be
// the experiment's current protocol hash, so an operator never rejects a
// protocol other than the one they were shown.
func (s *Service) Reject(ctx context.Context, operator, experimentID, shownHash, reason string) (Decision, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || len(reason) > 1000 {
		return Decision{}, &DecisionError{Status: http.StatusUnprocessableEntity, Code: "invalid_input",
			Message: "reason must be 1 to 1000 characters", Details: map[string]any{"pointer": "/reason"}}
	}
	row, err := s.awaitingDecision(ctx, experimentID, shownHash)
	if err != nil {
		return Decision{}, err
	}
	id, err := s.recordOperatorDecision(ctx, row, models.StatusRejected, operator, reason)
	if err != nil {
		return Decision{}, err
	}
	return s.signalAndWait(ctx, row, wf.RejectSignal,
		wf.Reject{Reason: reason, Operator: operator, DecisionID: id}, models.StatusRejected)
}

// recordOperatorDecision writes the authenticated operator's decision
// before the gate is signalled. The experiment workflow verifies the
// signal against this record (activities/flylab VerifyDecision), so only
// a decision that came through here opens or closes a gate; the id is
// random, so it cannot be guessed from values an agent knows.
func (s *Service) recordOperatorDecision(ctx context.Context, row models.Experiment, status, operator, reason string) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	id := "decision_" + hex.EncodeToString(b)
	return id, models.CreateDecision(ctx, s.deps.DB, models.OperatorDecision{ID: id, ExperimentID: row.ID, Status: status,
		ProtocolHash: row.ProtocolHash, Operator: operator, Reason: reason})
}

// awaitingDecision loads an experiment still waiting at the gate and, when
// hash is set, checks it is the protocol being decided.
func (s *Service) awaitingDecision(ctx context.Context, id, hash string) (models.Experiment, error) {
	row, err := models.ExperimentByID(ctx, s.deps.DB, id)
	if errors.Is(err, models.ErrNotFound) {
		return row, &DecisionError{Status: http.StatusNotFound, Code: "not_found", Message: "no experiment " + id}
	} else if err != nil {
		return row, err
	}
	if row.Status != models.StatusAwaitingApproval {
		return row, &DecisionError{Status: http.StatusConflict, Code: "already_decided", Message: "experiment is " + row.Status,
			Details: map[string]any{"status": row.Status}}
	}
	if hash != "" && hash != row.ProtocolHash {
		return row, &DecisionError{Status: http.StatusConflict, Code: "protocol_hash_mismatch",
			Message: "protocol_hash is not the experiment's current protocol hash", Details: map[string]any{"experiment_id": row.ID}}
	}
	return row, nil
}

// signalAndWait signals the experiment workflow, then waits until the
// decision is recorded and mirrored by the session, so the agent's next
// inspect_flylab_state shows it.
func (s *Service) signalAndWait(ctx context.Context, row models.Experiment, signal string, arg any, want string) (Decision, error) {
	err := s.deps.Temporal.SignalWorkflow(ctx, wf.ExperimentWorkflowID(row.ID), "", signal, arg)
	var gone *serviceerror.NotFound
	if errors.As(err, &gone) {
		return Decision{}, &DecisionError{Status: http.StatusConflict, Code: "not_waiting",
			Message: "the experiment workflow is not waiting for a decision", Details: map[string]any{"cause": err.Error()}}
	}
	if err != nil {
		return Decision{}, err // Temporal did not answer: retryable, nothing decided
	}
	deadline := time.Now().Add(decisionWait)
	for time.Now().Before(deadline) {
		cur, err := models.ExperimentByID(ctx, s.deps.DB, row.ID)
		st, qerr := s.state(ctx, row.SessionID)
		if err == nil && cur.Status == want && (qerr != nil || st.Experiment == nil || st.Experiment.ID != row.ID || st.Experiment.Status == want) {
			return Decision{Experiment: cur, SessionRevision: st.Revision, Mirrored: true}, nil
		}
		select {
		case <-ctx.Done():
			return Decision{Experiment: row}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return Decision{Experiment: row}, nil
}
