package research

import (
	"context"
	"errors"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

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
	proj, err := s.project(ctx, c, in.ProjectID)
	if err != nil {
		return nil, err
	}
	a, err := s.newReviewRequest(c, proj, reflectionTarget{st: st}, in)
	if err != nil {
		return nil, err
	}
	q, kind := a.request, a.request.Kind
	if err := models.CreateReviewRequest(ctx, s.DB, q); err != nil {
		return nil, err
	}
	if err := s.signalReflection(ctx, r.ID, wf.ReviewRequestedSignal, wf.ReviewRequested{Kind: kind, RequestID: q.ID, Role: q.Role,
		ExpiresAt: q.ExpiresAt, SnapshotToken: q.SnapshotToken}); err != nil {
		return nil, err
	}
	s.awaitReflectionRevision(ctx, r.ID, st.Revision)
	return a, nil
}

// openReflectionSession is openSession for a reflection target.
func (s *Service) openReflectionSession(ctx context.Context, r models.ReviewRequest, p platform.Principal, callerSessionID, agent string) (models.ReviewSession, error) {
	st, err := s.reflectionState(ctx, r.TargetID)
	if err != nil {
		return models.ReviewSession{}, err
	}
	sess, err := s.reviewStarted(ctx, reflectionTarget{st: st}, r, p, callerSessionID, agent)
	if err != nil {
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
	moved, err := reflectionTarget{}.moved(req.Kind, v)
	if err != nil {
		return nil, err
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
	return verdictAnswer(sess, req, v, moved), nil
}
