package research

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// reviewTTL is how long a reviewer capability is valid.
const reviewTTL = time.Hour

func init() {
	roles := []string{"design_reviewer", "experiment_reviewer", "reflection_reviewer", "consolidation_reviewer", "human", "automated_check"}
	registerFamily("review",
		Tool{Name: "review.request", Handler: reviewRequest, Description: "Request a review of the target's current snapshot; the reviewer capability is returned once.",
			Schema: object([]string{"project_id", "target_type", "target_id", "role"}, props{"project_id": projectID,
				"target_type": enum("target type", targetExperiment, targetReflection), "target_id": strLen("target id", 1, 64),
				"role": enum("reviewer role", roles...), "reason": strLen("reason", 0, 2000), "producer_session_id": strLen("producer session (default main)", 1, 128)})},
		Tool{Name: "review.start", Handler: reviewStart, Description: "Open a review session with a reviewer capability (scope: the capability, not a project).",
			Schema: object([]string{"review_request_id", "reviewer_capability", "caller_session_id"}, props{"review_request_id": strLen("request id", 1, 64),
				"reviewer_capability": strLen("capability rp_…", 1, 128), "caller_session_id": strLen("your session id", 1, 128), "declared_agent": strLen("agent", 0, 200)})},
		Tool{Name: "review.submit", Handler: reviewSubmit, Description: "Record a verdict (pass, needs_changes, fail) for a review session; it is signalled to the target's workflow.",
			Schema: object([]string{"review_session_id", "verdict", "synopsis"}, props{"review_session_id": strLen("session id", 1, 64),
				"verdict": enum("verdict", gateengine.VerdictPass, gateengine.VerdictNeedsChanges, gateengine.VerdictFail), "synopsis": strLen("synopsis", 1, 8000),
				"return_to": enum("where a rejection sends the target", "planned", "running", "reflecting", "synthesizing", "consolidating"),
				"notes":     strLen("notes", 0, 20000), "findings": anyList("findings", 100), "evidence": dict("evidence")})},
		Tool{Name: "review.status", Hidden: true, ReadOnly: true, Handler: reviewStatus, Description: "Internal: review requests of a project (pending first).",
			Schema: object([]string{"project_id"}, props{"project_id": projectID, "status": enum("status", models.ReviewRequested, models.ReviewStarted, models.ReviewSubmitted, models.ReviewSuperseded)})},
	)
}

type reviewArgs struct {
	ProjectID         string         `json:"project_id"`
	TargetType        string         `json:"target_type"`
	TargetID          string         `json:"target_id"`
	Role              string         `json:"role"`
	Reason            string         `json:"reason"`
	ProducerSessionID string         `json:"producer_session_id"`
	RequestID         string         `json:"review_request_id"`
	Capability        string         `json:"reviewer_capability"`
	CallerSessionID   string         `json:"caller_session_id"`
	DeclaredAgent     string         `json:"declared_agent"`
	SessionID         string         `json:"review_session_id"`
	Verdict           string         `json:"verdict"`
	Synopsis          string         `json:"synopsis"`
	ReturnTo          string         `json:"return_to"`
	Notes             string         `json:"notes"`
	Status            string         `json:"status"`
	Findings          []any          `json:"findings"`
	Evidence          map[string]any `json:"evidence"`
}

func reviewRequest(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reviewArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	kind, err := reviewTargetOf(in.TargetType)
	if err != nil {
		return nil, err
	}
	proj, t, err := kind.resolve(ctx, s, c, in.ProjectID, in.TargetID)
	if err != nil {
		return nil, err
	}
	a, err := s.newReviewRequest(c, proj, t, in)
	if err != nil {
		return nil, err
	}
	r := a.request
	var requested *notice
	if err := models.CreateReviewRequest(ctx, s.DB, r, func() (err error) {
		requested, err = t.notify(ctx, s, wf.ReviewRequestedSignal, r.ID, wf.ReviewRequested{Kind: r.Kind, RequestID: r.ID, Role: r.Role,
			ExpiresAt: r.ExpiresAt, SnapshotToken: r.SnapshotToken})
		return err
	}); err != nil {
		return nil, err
	}
	requested.answer(ctx, nil)
	return a, nil
}

func reviewStart(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reviewArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	r, err := models.ClaimReviewRequest(ctx, s.DB, in.RequestID, platform.HashSecret(in.Capability), in.CallerSessionID, s.now())
	if err != nil {
		return nil, err
	}
	if err := mayOpenReview(r, c.Principal); err != nil {
		return nil, err
	}
	sess, err := s.openSession(ctx, r, c.Principal, in.CallerSessionID, in.DeclaredAgent)
	if err != nil {
		return nil, err
	}
	return newReviewStartAnswer(sess, r), nil
}

func reviewSubmit(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reviewArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	sess, err := models.ReviewSessionByID(ctx, s.DB, in.SessionID)
	if err != nil {
		return nil, toolErr(CodeNotFound, "/review_session_id", "no such review session")
	}
	req, err := models.ReviewRequestByID(ctx, s.DB, sess.RequestID)
	if err != nil {
		return nil, err
	}
	if req.Role == models.RoleHuman && c.Principal.Role != platform.RoleOperator {
		return nil, toolErr(CodeForbidden, "/review_session_id", "a human review is answered by an operator")
	}
	if sess.OpenedByCredential == "" || sess.OpenedByCredential != c.Principal.CredentialID {
		return nil, &ToolError{Code: CodeForbidden, Pointer: "/review_session_id", Reason: ReasonReviewSessionBound,
			Message: "a review session is answered only by the credential that started it"}
	}
	out, err := s.recordVerdict(ctx, sess, req, Verdict{Verdict: in.Verdict, ReturnTo: in.ReturnTo, Synopsis: in.Synopsis, Notes: in.Notes,
		Findings: in.Findings, Evidence: in.Evidence})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// recordVerdict checks v against the review's status, records it once and
// notifies the target's workflow; the one path of review.submit and of a
// human verdict from the operator console. Where the verdict moved the
// target is read from the state the notice answers, not queried again.
func (s *Service) recordVerdict(ctx context.Context, sess models.ReviewSession, req models.ReviewRequest, v Verdict) (*VerdictAnswer, error) {
	kind, err := reviewTargetOf(req.TargetType)
	if err != nil {
		return nil, err
	}
	moved, err := kind.moved(req.Kind, v)
	if err != nil {
		return nil, err
	}
	t, err := kind.load(ctx, s, req.TargetID)
	if err != nil {
		return nil, err
	}
	sig := wf.ReviewVerdict{Kind: req.Kind, RequestID: req.ID, Verdict: v.Verdict, ReturnTo: v.ReturnTo, Synopsis: v.Synopsis, Notes: v.Notes,
		Findings: v.Findings, Evidence: v.Evidence}
	var answered *notice
	_, err = models.SubmitVerdict(ctx, s.DB, sess.ID, v.session(),
		func(models.ReviewRequest) (err error) {
			answered, err = t.notify(ctx, s, wf.ReviewVerdictSignal, req.ID, sig)
			return err
		})
	if err != nil {
		return nil, err
	}
	out := verdictAnswer(sess, req, v, moved)
	var after noticedTarget
	if answered.answer(ctx, &after) {
		after.report(out, t.snapshot())
	}
	return out, nil
}

// noticedTarget is what review.submit reports of the state a verdict's
// notice answers (an ExperimentState or a ReflectionState, decoded by
// their shared JSON keys): where the target is once the verdict applied.
type noticedTarget struct {
	Status           string `json:"status"`
	Attempt          int    `json:"attempt_index"`
	ProposalRevision int    `json:"proposal_revision"`
}

// report replaces the move out predicts (from reviewTarget.moved) with the
// one the workflow applied, seen against before, the target's snapshot
// when the verdict was recorded: its status, whether its attempt and (for
// a reflection) its proposal revision moved on. A verdict that moves
// nothing keeps its answer without move keys; a state without a status
// (none decoded) leaves the prediction. The workflow is the authority, so
// a verdict it did not apply (its request no longer current) shows the
// target where it stayed.
func (a noticedTarget) report(out *VerdictAnswer, before targetSnapshot) {
	if out.TargetStatus == nil || a.Status == "" {
		return
	}
	out.TargetStatus, out.NewAttempt = ptr(a.Status), ptr(a.Attempt > before.Attempt)
	if out.NewProposalRevision != nil && before.ProposalRevision != nil {
		out.NewProposalRevision = ptr(a.ProposalRevision > *before.ProposalRevision)
	}
}

// openSession opens the review session of a claimed request, once, if the
// target has not changed since the request, and tells the workflow.
func (s *Service) openSession(ctx context.Context, r models.ReviewRequest, p platform.Principal, callerSessionID, agent string) (models.ReviewSession, error) {
	kind, err := reviewTargetOf(r.TargetType)
	if err != nil {
		return models.ReviewSession{}, err
	}
	t, err := kind.load(ctx, s, r.TargetID)
	if err != nil {
		return models.ReviewSession{}, err
	}
	sess, started, err := s.reviewStarted(ctx, t, r, p, callerSessionID, agent)
	if err != nil {
		return models.ReviewSession{}, err
	}
	started.answer(ctx, nil)
	return sess, nil
}

// routeFor checks a verdict against the review status of req's kind.
func routeFor(req models.ReviewRequest, v Verdict) error {
	kind, err := reviewTargetOf(req.TargetType)
	if err != nil {
		return err
	}
	_, err = kind.moved(req.Kind, v)
	return err
}

func verdictError(err error) error {
	if ve, ok := err.(*gateengine.VerdictError); ok {
		return invalid("/"+ve.Field, ve.Message)
	}
	return err
}

func reviewStatus(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reviewArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	rs, err := models.ProjectReviewRequests(ctx, s.DB, in.ProjectID, in.Status, 200)
	if err != nil {
		return nil, err
	}
	return reviewRequestsAnswer{Requests: reviewViews(rs)}, nil
}

// reviewRequestsAnswer is review.status's answer and the operator
// console's pending human reviews.
type reviewRequestsAnswer struct {
	Requests []reviewRequestView `json:"review_requests"`
}
