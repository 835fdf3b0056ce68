package research

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

func reflectionSnapshot(st wf.ReflectionState) map[string]any {
	arts := []map[string]any{}
	for key, a := range st.Artifacts {
		if a.Attempt == st.Attempt {
			arts = append(arts, map[string]any{"artifact_id": a.ArtifactID, "role": a.Role, "key": key, "attempt_index": a.Attempt})
		}
	}
	snap := map[string]any{"target_type": "reflection", "target_id": st.ReflectionID, "status": st.Status, "attempt_index": st.Attempt,
		"proposal_revision": st.ProposalRevision, "artifacts": arts, "snapshot_token": st.SnapshotToken()}
	if st.Proposal != nil {
		snap["proposal_id"] = st.Proposal.ProposalID
	}
	return snap
}

// reflectionReviewRequest is review.request for target_type reflection.
func (s *Service) reflectionReviewRequest(ctx context.Context, c *Call, in reviewArgs) (any, error) {
	r, err := s.reflectionRow(ctx, c, in.ProjectID, in.TargetID)
	if err != nil {
		var te *ToolError
		if errors.As(err, &te) && te.Pointer == "/reflection_id" {
			te.Pointer = "/target_id"
		}
		return nil, err
	}
	st, err := s.reflectionState(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	kind := st.ReviewKind()
	if kind == "" || st.Decision().ReviewEvidence == "" {
		return nil, toolErr(CodeGateBlocked, "/target_id", "no review is due at reflection gate %s", st.Decision().Gate)
	}
	proj, err := s.project(ctx, c, in.ProjectID)
	if err != nil {
		return nil, err
	}
	if err := reviewRoleFits(proj, kind, in.Role); err != nil {
		return nil, err
	}
	if in.ProducerSessionID == "" {
		in.ProducerSessionID = "main"
	}
	capability := "rp_" + models.RandomHex(32)
	snap := reflectionSnapshot(st)
	raw, _ := json.Marshal(snap)
	q := models.ReviewRequest{ID: models.NewID("rr_"), ProjectID: r.ProjectID, TargetType: "reflection", TargetID: r.ID, Kind: kind,
		Role: in.Role, Reason: in.Reason, ProducerSessionID: in.ProducerSessionID, ProducerCredential: c.Principal.CredentialID,
		CapabilityHash: platform.HashSecret(capability),
		SnapshotToken:  st.SnapshotToken(), SnapshotJSON: string(raw), Status: models.ReviewRequested, ExpiresAt: s.now().Add(reviewTTL)}
	if err := models.CreateReviewRequest(ctx, s.DB, q); err != nil {
		return nil, err
	}
	if err := s.signalReflection(ctx, r.ID, wf.ReviewRequestedSignal, wf.ReviewRequested{Kind: kind, RequestID: q.ID, Role: q.Role,
		ExpiresAt: q.ExpiresAt, SnapshotToken: q.SnapshotToken}); err != nil {
		return nil, err
	}
	s.awaitReflectionRevision(ctx, r.ID, st.Revision)
	read := "reflection.get include_content=true"
	if kind == "consolidation" {
		read = "consolidation.get"
	}
	return map[string]any{"review_request_id": q.ID, "reviewer_capability": capability, "role": q.Role,
		"target_snapshot_id": q.SnapshotToken, "target_snapshot": snap, "expires_at": q.ExpiresAt,
		"reviewer_handoff": map[string]any{"role": q.Role, "skill": kind + "-review", "target_type": "reflection", "target_id": r.ID,
			"read_only": true, "start_tool": "review.start", "submit_tool": "review.submit",
			"spawn_prompt": "You are the " + q.Role + " for reflection " + r.ID + ". Call review.start with review_request_id " + q.ID +
				", the reviewer capability and your own caller_session_id; read the wave with " + read + "; then review.submit a verdict."}}, nil
}

// openReflectionSession is openSession for a reflection target.
func (s *Service) openReflectionSession(ctx context.Context, r models.ReviewRequest, p platform.Principal, callerSessionID, agent string) (models.ReviewSession, error) {
	st, err := s.reflectionState(ctx, r.TargetID)
	if err != nil {
		return models.ReviewSession{}, err
	}
	if st.SnapshotToken() != r.SnapshotToken {
		return models.ReviewSession{}, toolErr(CodeConflict, "/review_request_id", "the reflection changed since the review was requested; the producer must request a new review")
	}
	sess := newReviewSession(r, p, callerSessionID, agent)
	if err := models.StartReviewSession(ctx, s.DB, r, sess); err != nil {
		return models.ReviewSession{}, err
	}
	if err := s.signalReflection(ctx, r.TargetID, wf.ReviewStartedSignal, wf.ReviewStarted{Kind: r.Kind, RequestID: r.ID}); err != nil {
		return models.ReviewSession{}, err
	}
	s.awaitReflectionRevision(ctx, r.TargetID, st.Revision)
	return sess, nil
}

// recordReflectionVerdict is recordVerdict for a reflection target.
func (s *Service) recordReflectionVerdict(ctx context.Context, sess models.ReviewSession, req models.ReviewRequest, v Verdict) (map[string]any, error) {
	route, err := rg.RouteVerdict(req.Kind, v.Verdict, v.ReturnTo)
	if err != nil {
		return nil, verdictError(err)
	}
	st, err := s.reflectionState(ctx, req.TargetID)
	if err != nil {
		return nil, err
	}
	sig := wf.ReviewVerdict{Kind: req.Kind, RequestID: req.ID, Verdict: v.Verdict, ReturnTo: v.ReturnTo, Synopsis: v.Synopsis, Notes: v.Notes,
		Findings: v.Findings, Evidence: v.Evidence}
	_, err = models.SubmitVerdict(ctx, s.DB, sess.ID, v.session(),
		func(models.ReviewRequest) error {
			return s.signalReflection(ctx, req.TargetID, wf.ReviewVerdictSignal, sig)
		})
	if err != nil {
		return nil, err
	}
	s.awaitReflectionRevision(ctx, req.TargetID, st.Revision)
	out := map[string]any{"review_session_id": sess.ID, "review_request_id": req.ID, "verdict": v.Verdict, "recorded": true}
	if route.Moves {
		out["target_status"], out["new_attempt"], out["new_proposal_revision"] = route.To, route.NewAttempt, route.NewRevision
	}
	return out, nil
}
