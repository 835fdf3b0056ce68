package console

import (
	"context"
	"errors"
	"time"

	consolemodel "github.com/gatehouse/gatehouse/models/console"
)

// The console reads and acts on the domains only through the small
// interfaces below. Each is implemented twice: by an adapter over the
// domain's real code (source_*.go) and by in-memory fakes in the tests. A nil
// source means the domain is not part of this deployment and its page says
// so instead of showing anything made up.

// Operator is who performs a console action; adapters pass it to the domain
// operation so the action is attributed exactly as a REST call would be.
type Operator struct {
	// CredentialID is the operator credential behind the session.
	CredentialID string
	// Name is the credential's name.
	Name string
}

// Errors a source returns so the console can answer with a clear message.
// Adapters wrap the domain's own errors with these.
var (
	// ErrNotFound: the experiment, review, rollout or bundle does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the action no longer applies (already decided, protocol
	// changed since the page was rendered, rollout already finished).
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the submitted values were refused by the domain.
	ErrInvalid = errors.New("invalid input")
)

// Sources are the domain data the console shows; nil fields are domains not
// available in this deployment.
type Sources struct {
	// Approvals is FlyLab's operator gate (the Approvals page).
	Approvals ApprovalSource
	// Reviews are research human reviews (the Reviews page).
	Reviews ReviewSource
	// Rollouts is the flywheel queue (the Rollouts pages).
	Rollouts RolloutSource
	// Sessions are FlyLab page sessions (the Sessions page).
	Sessions FlyLabSessionSource
	// Experiments are research experiments (the Experiments page).
	Experiments ResearchExperimentSource
	// Evidence is FlyLab's evidence ledger (the Evidence pages).
	Evidence EvidenceSource
}

// ApprovalSource lists FlyLab experiments waiting for the operator gate and
// opens or closes that gate.
type ApprovalSource interface {
	// PendingApprovals lists experiments awaiting approval, oldest first.
	PendingApprovals(ctx context.Context) ([]PendingApproval, error)
	// Approve approves the protocol with exactly this hash; a protocol that
	// changed since is ErrConflict.
	Approve(ctx context.Context, op Operator, experimentID, protocolHash string) error
	// Reject rejects the protocol with this hash, giving a reason.
	Reject(ctx context.Context, op Operator, experimentID, protocolHash, reason string) error
}

// PendingApproval is one FlyLab experiment at the operator gate.
type PendingApproval struct {
	ExperimentID string
	SessionID    string
	HypothesisID string
	// Hypothesis is the claim the experiment tests.
	Hypothesis string
	// ProtocolHash is what an approval binds to ("sha256:…").
	ProtocolHash    string
	TargetCircuitID string
	Conditions      []Condition
	Timing          Timing
	Replicates      int
	Seeds           []int64
	// ModelAssumptions are the simulation model's stated assumptions.
	ModelAssumptions []string
	// ProtocolJSON is the complete protocol as the domain stores it,
	// indented, so nothing is hidden from the operator.
	ProtocolJSON string
	RequestedAt  time.Time
	WorkflowID   string
}

// Condition is one arm of a FlyLab protocol.
type Condition struct {
	ID           string
	Label        string
	Perturbation string
	Laterality   string
	// ActivationLevel is the requested unitless control.
	ActivationLevel float64
	// Drives are the effective drives the simulator applies, per channel.
	Drives []Drive
	// Derivation is the formula that turns the request into the drives.
	Derivation string
}

// Drive is one channel's effective drive during the stimulation window.
type Drive struct {
	Channel   string
	Effective float64
}

// Timing is a protocol's stimulation timing.
type Timing struct {
	OnsetMS, DurationMS, TrialDurationMS int
}

// ReviewSource lists human review requests of the research tools and
// submits the operator's verdict.
type ReviewSource interface {
	// PendingReviews lists open human review requests, oldest first.
	PendingReviews(ctx context.Context) ([]ReviewRequest, error)
	// SubmitVerdict closes a review request with a verdict.
	SubmitVerdict(ctx context.Context, op Operator, requestID string, v Verdict) error
}

// ReviewRequest is a research target waiting for a human verdict.
type ReviewRequest struct {
	ID         string
	ProjectID  string
	TargetType string
	TargetID   string
	Reason     string
	Artifacts  []Artifact
	CreatedAt  time.Time
	WorkflowID string
}

// Artifact is one artifact of a review target or session manifest.
type Artifact struct {
	ID      string
	Type    string
	Title   string
	Labels  []string
	Summary string
}

// Verdict values and the stages a needs_changes verdict may return to, as
// the research contract's review.submit names them.
var (
	Verdicts       = []string{"pass", "needs_changes", "fail"}
	ReturnToStages = []string{"planned", "running", "reflecting", "synthesizing", "consolidating"}
)

// Verdict is a submitted human review.
type Verdict struct {
	Verdict  string
	Synopsis string
	// ReturnTo is empty or one of ReturnToStages.
	ReturnTo string
}

// RolloutSource reads the flywheel queue and cancels rollouts.
type RolloutSource interface {
	// RolloutOverview returns the queue counts and one page of rollouts,
	// newest first; a cursor it did not issue is ErrBadCursor.
	RolloutOverview(ctx context.Context, f RolloutFilter, p Page) (RolloutCounts, ListPage[RolloutRow], error)
	// Rollout returns one rollout with its lease history and heartbeats.
	Rollout(ctx context.Context, id string) (RolloutDetail, error)
	// CancelRollout cancels a rollout that has not finished.
	CancelRollout(ctx context.Context, op Operator, id, reason string) error
}

// Page is the page of a list a request asks for (cursor and size).
type Page = consolemodel.Page

// ErrBadCursor is a page cursor the console did not issue.
var ErrBadCursor = consolemodel.ErrBadCursor

// ListPage is one page of a list and the cursor of the next ("" on the
// last page).
type ListPage[T any] struct {
	Items []T
	Next  string
}

// RolloutFilter narrows the rollout list (state, owner).
type RolloutFilter = consolemodel.RolloutFilter

// SessionFilter narrows the FlyLab session list (owner key, gate).
type SessionFilter = consolemodel.SessionFilter

// ExperimentFilter narrows the research experiment list (project, gate).
type ExperimentFilter = consolemodel.ExperimentFilter

// RolloutCounts are the flywheel queue's counters.
type RolloutCounts struct {
	Queued, Leased, Completed, Excluded, Cancelled int
}

// RolloutRow is one rollout in the list.
type RolloutRow struct {
	ID    string
	State string
	// Owner says which agent keys may claim the rollout ("" for any).
	Owner string
	// OnPolicy is nil until the rollout's output arrives.
	OnPolicy     *bool
	GatewayCalls int
	Attempts     int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	WorkflowID   string
}

// RolloutDetail is one rollout with its history.
type RolloutDetail struct {
	RolloutRow
	// Leases is the lease history, oldest first, with heartbeats per lease.
	Leases []Lease
	// CallsByModel breaks GatewayCalls down by upstream model, when known.
	CallsByModel []Count
	// ReportedCalls is the LLM call count the agent reported, if any; the
	// gateway's own count is GatewayCalls.
	ReportedCalls *int
	// Exclusion says why an excluded rollout was excluded.
	Exclusion string
	// Finished rollouts cannot be cancelled.
	Finished bool
}

// Lease is one lease of a rollout by a claimer.
type Lease struct {
	Epoch      int
	Holder     string
	LeasedAt   time.Time
	ExpiresAt  time.Time
	Heartbeats int
	EndedAt    time.Time
	Outcome    string
}

// Count is a labelled count.
type Count struct {
	Label string
	N     int
}

// FlyLabSessionSource lists FlyLab page sessions with their manifests.
type FlyLabSessionSource interface {
	// FlyLabSessions returns one page of sessions, newest first.
	FlyLabSessions(ctx context.Context, f SessionFilter, p Page) (ListPage[FlyLabSession], error)
}

// FlyLabSession is one FlyLab page session.
type FlyLabSession struct {
	ID            string
	StateRevision int
	Status        string
	// OwnerKey and OwnerName are the agent key that owns the session.
	OwnerKey  string
	OwnerName string
	// Gate is the session's gate (open, awaiting_approval, saved).
	Gate       string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	Artifacts  []Artifact
	WorkflowID string
}

// ResearchExperimentSource lists research experiments with their gate.
type ResearchExperimentSource interface {
	// ResearchExperiments returns one page of experiments, newest first.
	ResearchExperiments(ctx context.Context, f ExperimentFilter, p Page) (ListPage[ResearchExperiment], error)
}

// ResearchExperiment is one research experiment and its current gate.
type ResearchExperiment struct {
	ID         string
	ProjectID  string
	Title      string
	Status     string
	Gate       string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	WorkflowID string
}

// EvidenceSource reads saved FlyLab evidence bundles.
type EvidenceSource interface {
	// EvidenceBundles lists saved bundles, newest first.
	EvidenceBundles(ctx context.Context) ([]EvidenceSummary, error)
	// EvidenceBundle returns one bundle with its trajectories and metrics.
	EvidenceBundle(ctx context.Context, id string) (EvidenceBundle, error)
	// EvidenceExport returns the bundle's portable export document.
	EvidenceExport(ctx context.Context, id string) (Export, error)
}

// EvidenceSummary is a bundle in the list.
type EvidenceSummary struct {
	ID           string
	Title        string
	ExperimentID string
	CreatedAt    time.Time
}

// EvidenceBundle is a saved bundle ready to plot.
type EvidenceBundle struct {
	EvidenceSummary
	SessionID    string
	ManifestHash string
	Runs         []Run
	Metrics      []Metric
}

// Run is one simulated run's trajectory.
type Run struct {
	ID        string
	Condition string
	Seed      int64
	Points    []Point
}

// Point is a trajectory sample in millimetres.
type Point struct{ X, Y float64 }

// Metric is one metric of the panel, per condition.
type Metric struct {
	ID     string
	Unit   string
	Values []ConditionValue
}

// ConditionValue is a metric's value for one condition.
type ConditionValue struct {
	Condition string
	Value     float64
}

// Export is a downloadable evidence export.
type Export struct {
	Filename  string
	MediaType string
	Body      []byte
}
