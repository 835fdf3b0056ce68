package research

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// NoticeUpdate tells an experiment or a reflection wave about a record
// the api wrote (an artifact landed, a review requested, started or
// answered, a proposal stored, a dependency settled) and answers the
// state once the workflow applied it. It replaces the gate signal of the
// same Signal name followed by polling the state: the api sends it
// inside the transaction that writes the record, waiting only for the
// validator's acceptance, and reads the answer after committing.
//
// Like the signal, the notice is only a name: the handler applies the
// database record VerifyDecisionActivity reads, never values of its own.
// Registering the handler writes nothing to history, and a recorded
// history holds no such Update, so no GetVersion guards it; the signals
// stay registered for runs and clients that still send them.
const NoticeUpdate = "notice"

// Notice is the argument of NoticeUpdate.
type Notice struct {
	// Signal is the gate signal the notice stands for (ArtifactLandedSignal, ...).
	Signal string `json:"signal"`
	// RecordID is the artifact, review request, proposal or dependency
	// experiment the record is keyed by.
	RecordID string `json:"record_id"`
}

// UpdateID is the notice's Update ID: one per record and signal, so a
// retried call is deduplicated by Temporal and applied once.
func (n Notice) UpdateID() string { return n.Signal + "/" + n.RecordID }

// registerNotices sets the NoticeUpdate handler. Its validator refuses, before
// anything is written to history, a notice of an unknown signal or
// without a record.
func (l *lifecycle[S, St, R]) registerNotices(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, NoticeUpdate,
		func(ctx workflow.Context, in Notice) (S, error) {
			if rec, ok := verifyDecision(ctx, l.core.gate.query(in.Signal, in.RecordID), l.core.gate.rejected); ok {
				l.core.gate.applyNotice(ctx, in.Signal, rec)
			}
			if err := l.answerMirrored(ctx); err != nil {
				var zero S
				return zero, err
			}
			return l.state(), nil
		},
		workflow.UpdateHandlerOptions{Validator: func(_ workflow.Context, in Notice) error {
			switch {
			case !l.core.gate.takes(in.Signal):
				return temporal.NewApplicationErrorWithOptions(fmt.Sprintf("no notice %q for this workflow", in.Signal), ErrTypeInvalidInput,
					temporal.ApplicationErrorOptions{NonRetryable: true})
			case in.RecordID == "":
				return temporal.NewApplicationErrorWithOptions("a notice names its record", ErrTypeInvalidInput,
					temporal.ApplicationErrorOptions{NonRetryable: true})
			}
			return nil
		}})
}
