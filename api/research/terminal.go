package research

import (
	"context"
	"errors"
	"slices"

	"go.temporal.io/api/serviceerror"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/temporalerr"
	models "github.com/gatehouse/gatehouse/models/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// closedTransitionError answers a transition sent to a workflow that has
// closed. A workflow only closes after its last state was mirrored to the
// database, so a terminal row there gets the same gate_blocked answer the
// gate table gives while the workflow is still open; anything else is a
// conflict (the workflow is missing).
func closedTransitionError(ctx context.Context, db *gorm.DB, err error, kind, id string) error {
	var nf *serviceerror.NotFound
	if !errors.As(err, &nf) {
		return nil
	}
	status := terminalStatus(ctx, db, kind, id)
	if status == "" {
		return missingWorkflowError(kind)
	}
	return &ToolError{Code: CodeGateBlocked, Pointer: "/transition", Message: "the " + kind + " is " + status + "; no transition leaves it",
		Details: map[string]any{"current_gate": "terminal", "allowed_transitions": []string{}}}
}

// closedSignalError answers a signal (an artifact landed, a review
// requested, started or answered) Temporal did not take: a workflow that
// closed after a terminal status is gate_blocked with that status; Temporal
// out of reach is a retryable unavailable; anything else is a conflict.
func closedSignalError(ctx context.Context, db *gorm.DB, err error, kind, id, signal string) error {
	if err == nil {
		return nil
	}
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		if status := terminalStatus(ctx, db, kind, id); status != "" {
			return &ToolError{Code: CodeGateBlocked, Reason: kind + "_finished", Message: "the " + kind + " is " + status +
				"; its workflow has closed and takes no " + signal, Details: map[string]any{"current_gate": "terminal", "status": status}}
		}
		return missingWorkflowError(kind)
	case temporalerr.Transient(err):
		return &ToolError{Code: CodeUnavailable, Message: "Temporal did not take the " + signal + " for the " + kind + " (unreachable); retry",
			Details: map[string]any{"retryable": true}}
	}
	// Temporal refused for a reason of its own (restarting, overloaded,
	// internal): nothing the caller did, and nothing was recorded.
	return &ToolError{Code: CodeUnavailable, Message: "Temporal did not take the " + signal + " for the " + kind + "; retry",
		Details: map[string]any{"retryable": true}}
}

// missingWorkflowError answers a call for an open experiment or wave whose
// workflow Temporal does not know: its start was lost while Temporal was
// out of reach. It is a retryable outage, not the caller's conflict; the
// create call (idempotent by name) starts the missing workflow.
func missingWorkflowError(kind string) *ToolError {
	return &ToolError{Code: CodeUnavailable, Message: "the " + kind + "'s workflow is not running (its start was lost while Temporal was unreachable); " +
		"retry, or call " + kind + ".create again, which starts it", Details: map[string]any{"retryable": true, "workflow_missing": true}}
}

// terminalStatus is the status the database mirror holds for a finished
// experiment or wave ("" if it is open or missing).
func terminalStatus(ctx context.Context, db *gorm.DB, kind, id string) string {
	switch kind {
	case targetExperiment:
		if st, err := models.ExperimentStatus(ctx, db, id); err == nil && !slices.Contains(models.OpenStatuses, st) {
			return st
		}
	case targetReflection:
		if st, err := models.ReflectionStatus(ctx, db, id); err == nil && rg.Status(st).Terminal() {
			return st
		}
	}
	return ""
}
