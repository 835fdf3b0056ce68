package research

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// A signal that could open a gate (an artifact landed, a review requested,
// started or answered, a proposal stored, a dependency settled) is only a
// notice: anyone who reaches the Temporal frontend can send one with the
// right values. The workflow acts on it only after VerifyDecisionActivity
// read, from the database Gatehouse's api wrote when it authenticated the
// caller, the record the notice names, and it applies the record's values,
// never the notice's. A notice no record backs changes nothing and is
// logged (RejectedSignals).
const (
	// VerifyDecisionActivity reads the decision record a signal names.
	VerifyDecisionActivity = "research.VerifyDecision"
	// ErrTypeDecisionRefused: no committed record backs the signal.
	ErrTypeDecisionRefused = "decision_refused"
	// ErrTypeDecisionPending: the record is not committed yet (the api
	// signals inside the transaction that writes it); retried.
	ErrTypeDecisionPending = "decision_pending"
	// verifiedSignalsChange versions the change from trusting a signal's
	// values to verifying them: recorded histories replay without it.
	verifiedSignalsChange = "verified-gate-signals"
	// maxRejectedSignals bounds the rejected notices a state keeps.
	maxRejectedSignals = 50
)

// Target types a DecisionQuery names.
const (
	TargetExperiment = "experiment"
	TargetReflection = "reflection"
)

// DecisionQuery asks VerifyDecisionActivity for the record behind a signal.
type DecisionQuery struct {
	Signal     string `json:"signal"`
	TargetType string `json:"target_type"`
	ProjectID  string `json:"project_id"`
	TargetID   string `json:"target_id"`
	// RecordID is the artifact, review request, proposal or dependency
	// experiment the signal names.
	RecordID string `json:"record_id"`
	// ReceivedAt is when the signal arrived; a record still uncommitted
	// long after it is refused.
	ReceivedAt time.Time `json:"received_at"`
}

// DecisionRecord is the verified record; one field is set, by signal.
type DecisionRecord struct {
	Artifact   *ReflectionArtifact `json:"artifact,omitempty"`
	Review     *ReviewRecord       `json:"review,omitempty"`
	Proposal   *ProposalRef        `json:"proposal,omitempty"`
	Dependency *DependencySettled  `json:"dependency,omitempty"`
}

// Review request statuses of a ReviewRecord (the database's words).
const (
	RecordRequested = "requested"
	RecordStarted   = "started"
	RecordSubmitted = "submitted"
)

// ReviewRecord is a review request as the database holds it, with its
// verdict once submitted.
type ReviewRecord struct {
	RequestID     string    `json:"request_id"`
	Kind          string    `json:"kind"`
	Role          string    `json:"role"`
	Status        string    `json:"status"`
	ExpiresAt     time.Time `json:"expires_at"`
	SnapshotToken string    `json:"snapshot_token"`
	Verdict       string    `json:"verdict,omitempty"`
	ReturnTo      string    `json:"return_to,omitempty"`
	Synopsis      string    `json:"synopsis,omitempty"`
	Notes         string    `json:"notes,omitempty"`
	// Findings and Evidence are review.submit's, kept for the producer.
	Findings []any          `json:"findings,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty"`
	// SubmittedAt is when the database recorded the verdict; the api
	// accepted it only before ExpiresAt. Zero on records of older
	// activities and of requests not yet answered.
	SubmittedAt time.Time `json:"submitted_at,omitzero"`
}

// RejectedSignal is a gate-opening signal no record backed.
type RejectedSignal struct {
	Signal   string    `json:"signal"`
	RecordID string    `json:"record_id"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
}

// receiveIn applies every signal on name, in order, with apply, which
// may block (it runs in the reader's own coroutine, given its context).
func receiveIn[T any](ctx workflow.Context, name string, apply func(workflow.Context, T)) {
	ch := workflow.GetSignalChannel(ctx, name)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var v T
			if !ch.Receive(ctx, &v) {
				return
			}
			apply(ctx, v)
		}
	})
}

// verifiesSignals reports whether this run verifies gate-opening signals
// (every run started, or signalled, since the change).
func verifiesSignals(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, verifiedSignalsChange, workflow.DefaultVersion, 1) >= 1
}

// verifyDecision runs VerifyDecisionActivity for q. ok is false when no
// record backs the signal; the refusal is logged and appended to rejected.
func verifyDecision(ctx workflow.Context, q DecisionQuery, rejected *[]RejectedSignal) (DecisionRecord, bool) {
	q.ReceivedAt = workflow.Now(ctx)
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2,
			MaximumInterval: 5 * time.Second, NonRetryableErrorTypes: []string{ErrTypeDecisionRefused}},
	})
	var rec DecisionRecord
	err := workflow.ExecuteActivity(actx, VerifyDecisionActivity, q).Get(ctx, &rec)
	if err == nil {
		return rec, true
	}
	reason := err.Error()
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		reason = ae.Message()
	}
	workflow.GetLogger(ctx).Warn("research: refused a gate signal no authenticated record backs",
		"signal", q.Signal, "target", q.TargetID, "record", q.RecordID, "reason", reason)
	*rejected = append(*rejected, RejectedSignal{Signal: q.Signal, RecordID: q.RecordID, Reason: reason, At: q.ReceivedAt})
	if n := len(*rejected); n > maxRejectedSignals {
		*rejected = (*rejected)[n-maxRejectedSignals:]
	}
	return DecisionRecord{}, false
}

// verdictOf turns a submitted review record into the verdict it carries.
func verdictOf(r ReviewRecord) ReviewVerdict {
	return ReviewVerdict{Kind: r.Kind, RequestID: r.RequestID, Verdict: r.Verdict, ReturnTo: r.ReturnTo, Synopsis: r.Synopsis, Notes: r.Notes,
		Findings: r.Findings, Evidence: r.Evidence}
}
