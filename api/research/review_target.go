package research

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// reviewTarget is what the review and artifact tools need of the thing
// reviewed, an experiment or a reflection wave, as its workflow's state
// shows it: how to find it and tell its workflow, the review its gate
// waits for, the snapshot a reviewer is shown, where a verdict moves it
// and the artifacts it takes. review.request, review.start,
// review.submit, artifact.submit and the upload URL resolve the target
// once (reviewTargetOf, then resolve or load) and run one path for both.
type reviewTarget interface {
	// ref is the target's type (targetExperiment, targetReflection) and id.
	ref() (targetType, id string)
	// resolve loads target id of project projectID for caller c (its
	// errors point at /target_id) with its workflow's state.
	resolve(ctx context.Context, s *Service, c *Call, projectID, id string) (models.Project, reviewTarget, error)
	// load reads target id's state with no access check: the id comes
	// from a stored review request or artifact.
	load(ctx context.Context, s *Service, id string) (reviewTarget, error)
	// notify tells the loaded target's workflow about a record (see notice).
	notify(ctx context.Context, s *Service, signal, recordID string, legacy any) (*notice, error)
	// due is the review kind the target's gate waits for; a gate waiting
	// for none answers gate_blocked.
	due() (string, error)
	// snapshot is what a reviewer is shown; token fingerprints it.
	snapshot() targetSnapshot
	token() string
	// prompt is the spawn prompt handed to the reviewer of requestID.
	prompt(role, requestID, kind string) string
	// changed is the conflict answered when the target left the snapshot
	// a request was made for.
	changed() *ToolError
	// moved checks verdict v on a review of kind and names where it moves
	// the target (nil when it stays). It reads no state, so a bad verdict
	// is refused before anything is read or written.
	moved(kind string, v Verdict) (*verdictMove, error)
	artifactTarget
}

// reviewTargetOf is the target type's reviewTarget with no state loaded:
// enough for ref's type, moved, artifactLimit, resolve and load. An
// unknown type is invalid input at /target_type.
func reviewTargetOf(targetType string) (reviewTarget, error) {
	switch targetType {
	case targetExperiment:
		return experimentTarget{}, nil
	case targetReflection:
		return reflectionTarget{}, nil
	}
	return nil, toolErr(CodeInvalidInput, "/target_type", "unknown target type %q", targetType)
}

// experimentTarget is an experiment as a review target.
type experimentTarget struct {
	st   wf.ExperimentState
	name string
}

func (t experimentTarget) ref() (string, string) { return targetExperiment, t.st.ExperimentID }

func (experimentTarget) resolve(ctx context.Context, s *Service, c *Call, projectID, id string) (models.Project, reviewTarget, error) {
	p, e, err := s.experiment(ctx, c, projectID, id)
	if err != nil {
		return p, nil, targetError(err)
	}
	st, err := s.state(ctx, e.ID)
	if err != nil {
		return p, nil, err
	}
	return p, experimentTarget{st: st, name: e.Name}, nil
}

func (experimentTarget) load(ctx context.Context, s *Service, id string) (reviewTarget, error) {
	st, err := s.state(ctx, id)
	if err != nil {
		return nil, err
	}
	return experimentTarget{st: st, name: st.Name}, nil
}

func (t experimentTarget) notify(ctx context.Context, s *Service, signal, recordID string, legacy any) (*notice, error) {
	return s.notify(ctx, t.st.ExperimentID, signal, recordID, legacy)
}

func (t experimentTarget) due() (string, error) {
	kind := wf.ReviewKindOf(t.st.Status)
	if kind == "" {
		return "", toolErr(CodeGateBlocked, "/target_id", "no review is due at status %s", t.st.Status)
	}
	return kind, nil
}

func (t experimentTarget) snapshot() targetSnapshot {
	arts := []snapshotArtifact{}
	for _, a := range t.st.Artifacts {
		if a.Attempt == t.st.Attempt {
			arts = append(arts, snapshotArtifact{ArtifactID: a.ArtifactID, Role: a.Role, Attempt: a.Attempt})
		}
	}
	return targetSnapshot{TargetType: targetExperiment, TargetID: t.st.ExperimentID, Status: string(t.st.Status),
		Attempt: t.st.Attempt, Artifacts: arts, SnapshotToken: t.st.SnapshotToken()}
}

func (t experimentTarget) token() string { return t.st.SnapshotToken() }

func (t experimentTarget) prompt(role, requestID, _ string) string {
	return "You are the " + role + " for experiment " + t.name + ". Call review.start with review_request_id " + requestID +
		", the reviewer capability and your own caller_session_id; read the artifacts with artifact.find include_content=true; then review.submit a verdict."
}

func (experimentTarget) changed() *ToolError {
	return toolErr(CodeConflict, "/review_request_id", "the target changed since the review was requested; the producer must request a new review")
}

func (experimentTarget) moved(kind string, v Verdict) (*verdictMove, error) {
	reviewStatus := gates.DesignReview
	if kind == kindExperiment {
		reviewStatus = gates.ExperimentReview
	}
	route, err := gates.RouteVerdict(reviewStatus, v.Verdict, v.ReturnTo)
	if err != nil {
		return nil, verdictError(err)
	}
	if !route.Moves {
		return nil, nil
	}
	return &verdictMove{TargetStatus: string(route.To), NewAttempt: route.NewAttempt}, nil
}

// reflectionTarget is a reflection wave as a review target.
type reflectionTarget struct {
	st wf.ReflectionState
}

func (t reflectionTarget) ref() (string, string) { return targetReflection, t.st.ReflectionID }

func (reflectionTarget) resolve(ctx context.Context, s *Service, c *Call, projectID, id string) (models.Project, reviewTarget, error) {
	p, err := s.project(ctx, c, projectID)
	if err != nil {
		return p, nil, err
	}
	r, err := models.ReflectionInProject(ctx, s.DB, projectID, id)
	if errors.Is(err, models.ErrNoRecord) {
		return p, nil, toolErr(CodeNotFound, "/target_id", "no reflection %s in project %s", id, projectID)
	}
	if err != nil {
		return p, nil, err
	}
	st, err := s.reflectionState(ctx, r.ID)
	if err != nil {
		return p, nil, err
	}
	return p, reflectionTarget{st: st}, nil
}

func (reflectionTarget) load(ctx context.Context, s *Service, id string) (reviewTarget, error) {
	st, err := s.reflectionState(ctx, id)
	if err != nil {
		return nil, err
	}
	return reflectionTarget{st: st}, nil
}

func (t reflectionTarget) notify(ctx context.Context, s *Service, signal, recordID string, legacy any) (*notice, error) {
	return s.notifyReflection(ctx, t.st.ReflectionID, signal, recordID, legacy)
}

func (t reflectionTarget) due() (string, error) {
	kind := t.st.ReviewKind()
	if kind == "" || t.st.Decision().ReviewEvidence == "" {
		return "", toolErr(CodeGateBlocked, "/target_id", "no review is due at reflection gate %s", t.st.Decision().Gate)
	}
	return kind, nil
}

func (t reflectionTarget) snapshot() targetSnapshot {
	arts := []snapshotArtifact{}
	for key, a := range t.st.Artifacts {
		if a.Attempt == t.st.Attempt {
			arts = append(arts, snapshotArtifact{ArtifactID: a.ArtifactID, Role: a.Role, Key: &key, Attempt: a.Attempt})
		}
	}
	revision := t.st.ProposalRevision
	snap := targetSnapshot{TargetType: targetReflection, TargetID: t.st.ReflectionID, Status: string(t.st.Status), Attempt: t.st.Attempt,
		ProposalRevision: &revision, Artifacts: arts, SnapshotToken: t.st.SnapshotToken()}
	if t.st.Proposal != nil {
		id := t.st.Proposal.ProposalID
		snap.ProposalID = &id
	}
	return snap
}

func (t reflectionTarget) token() string { return t.st.SnapshotToken() }

func (t reflectionTarget) prompt(role, requestID, kind string) string {
	read := "reflection.get include_content=true"
	if kind == kindConsolidation {
		read = "consolidation.get"
	}
	return "You are the " + role + " for reflection " + t.st.ReflectionID + ". Call review.start with review_request_id " + requestID +
		", the reviewer capability and your own caller_session_id; read the wave with " + read + "; then review.submit a verdict."
}

func (reflectionTarget) changed() *ToolError {
	return toolErr(CodeConflict, "/review_request_id", "the reflection changed since the review was requested; the producer must request a new review")
}

func (reflectionTarget) moved(kind string, v Verdict) (*verdictMove, error) {
	route, err := rg.RouteVerdict(kind, v.Verdict, v.ReturnTo)
	if err != nil {
		return nil, verdictError(err)
	}
	if !route.Moves {
		return nil, nil
	}
	return &verdictMove{TargetStatus: string(route.To), NewAttempt: route.NewAttempt, NewProposalRevision: ptr(route.NewRevision)}, nil
}

// newReviewRequest checks that t waits for a review in.Role may give in
// project p and builds the request row (the caller stores it) with a
// fresh reviewer capability, whose plaintext only the answer carries.
func (s *Service) newReviewRequest(c *Call, p models.Project, t reviewTarget, in reviewArgs) (reviewRequestAnswer, error) {
	kind, err := t.due()
	if err != nil {
		return reviewRequestAnswer{}, err
	}
	if err := reviewRoleFits(p, kind, in.Role); err != nil {
		return reviewRequestAnswer{}, err
	}
	if in.ProducerSessionID == "" {
		in.ProducerSessionID = "main"
	}
	capability := "rp_" + models.RandomHex(32)
	snap := t.snapshot()
	raw, _ := json.Marshal(snap)
	typ, id := t.ref()
	r := models.ReviewRequest{ID: models.NewID("rr_"), ProjectID: p.ID, TargetType: typ, TargetID: id, Kind: kind,
		Role: in.Role, Reason: in.Reason, ProducerSessionID: in.ProducerSessionID, ProducerCredential: c.Principal.CredentialID,
		CapabilityHash: platform.HashSecret(capability), SnapshotToken: t.token(), SnapshotJSON: string(raw),
		Status: models.ReviewRequested, ExpiresAt: s.now().Add(reviewTTL)}
	return reviewRequestAnswer{RequestID: r.ID, Capability: capability, Role: r.Role, SnapshotID: r.SnapshotToken, Snapshot: snap,
		ExpiresAt: r.ExpiresAt, Handoff: reviewerHandoff{Role: r.Role, Skill: kind + "-review", TargetType: typ, TargetID: id,
			ReadOnly: true, StartTool: "review.start", SubmitTool: "review.submit", SpawnPrompt: t.prompt(r.Role, r.ID, kind)},
		request: r}, nil
}

// reviewRequestAnswer is review.request's answer.
type reviewRequestAnswer struct {
	ExpiresAt  time.Time       `json:"expires_at"`
	RequestID  string          `json:"review_request_id"`
	Capability string          `json:"reviewer_capability"`
	Handoff    reviewerHandoff `json:"reviewer_handoff"`
	Role       string          `json:"role"`
	Snapshot   targetSnapshot  `json:"target_snapshot"`
	SnapshotID string          `json:"target_snapshot_id"`

	request models.ReviewRequest
}

// reviewerHandoff tells the producer how to hand the review to a reviewer.
type reviewerHandoff struct {
	ReadOnly    bool   `json:"read_only"`
	Role        string `json:"role"`
	Skill       string `json:"skill"`
	SpawnPrompt string `json:"spawn_prompt"`
	StartTool   string `json:"start_tool"`
	SubmitTool  string `json:"submit_tool"`
	TargetID    string `json:"target_id"`
	TargetType  string `json:"target_type"`
}

// targetSnapshot is what a reviewer is shown of a target: its current
// attempt's artifacts. A reflection's also names its proposal revision
// and, once there is one, its proposal. Fields are in the order of their
// JSON keys, as the map it replaced encoded them.
type targetSnapshot struct {
	Artifacts        []snapshotArtifact `json:"artifacts"`
	Attempt          int                `json:"attempt_index"`
	ProposalID       *string            `json:"proposal_id,omitempty"`
	ProposalRevision *int               `json:"proposal_revision,omitempty"`
	SnapshotToken    string             `json:"snapshot_token"`
	Status           string             `json:"status"`
	TargetID         string             `json:"target_id"`
	TargetType       string             `json:"target_type"`
}

// snapshotArtifact is one artifact of a targetSnapshot; a reflection's
// names its key in the wave's artifacts.
type snapshotArtifact struct {
	ArtifactID string  `json:"artifact_id"`
	Attempt    int     `json:"attempt_index"`
	Key        *string `json:"key,omitempty"`
	Role       string  `json:"role"`
}

// reviewStarted checks that t still shows the snapshot r was requested
// for and opens p's review session on it, once, telling t's workflow
// before the session commits (see StartReviewSession); it returns the
// notice to wait on.
func (s *Service) reviewStarted(ctx context.Context, t reviewTarget, r models.ReviewRequest, p platform.Principal, callerSessionID, agent string) (models.ReviewSession, *notice, error) {
	if t.token() != r.SnapshotToken {
		return models.ReviewSession{}, nil, snapshotChanged(t, r)
	}
	sess := newReviewSession(r, p, callerSessionID, agent)
	var started *notice
	err := models.StartReviewSession(ctx, s.DB, r, sess, func() (err error) {
		started, err = t.notify(ctx, s, wf.ReviewStartedSignal, r.ID, wf.ReviewStarted{Kind: r.Kind, RequestID: r.ID})
		return err
	})
	return sess, started, err
}

// snapshotChanged is t's changed conflict for request r, with both
// snapshots in its details: the one r was requested for and the one the
// target shows now, so the producer sees what moved.
func snapshotChanged(t reviewTarget, r models.ReviewRequest) error {
	requested := json.RawMessage(r.SnapshotJSON)
	if !json.Valid(requested) {
		requested = nil
	}
	err := t.changed()
	err.Details = map[string]any{"requested_snapshot": requested, "current_snapshot": t.snapshot()}
	return err
}

// verdictAnswer is review.submit's answer: the verdict recorded, and where
// it moved the target (moved, from reviewTarget.moved; nil when it stays).
func verdictAnswer(sess models.ReviewSession, req models.ReviewRequest, v Verdict, moved *verdictMove) *VerdictAnswer {
	out := &VerdictAnswer{ReviewSessionID: sess.ID, ReviewRequestID: req.ID, Verdict: v.Verdict, Recorded: true}
	if moved != nil {
		out.TargetStatus, out.NewAttempt, out.NewProposalRevision = ptr(moved.TargetStatus), ptr(moved.NewAttempt), moved.NewProposalRevision
	}
	return out
}

// verdictMove is where a verdict moves its target: its new status, whether
// that starts a new attempt and, for a reflection only, whether it asks
// for a new proposal revision.
type verdictMove struct {
	NewAttempt          bool
	NewProposalRevision *bool
	TargetStatus        string
}
