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
	requested, err := s.notifyReflection(ctx, r.ID, wf.ReviewRequestedSignal, q.ID, wf.ReviewRequested{Kind: kind, RequestID: q.ID, Role: q.Role,
		ExpiresAt: q.ExpiresAt, SnapshotToken: q.SnapshotToken})
	if err != nil {
		return nil, err
	}
	requested.answer(ctx, nil)
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
	started, err := s.notifyReflection(ctx, r.TargetID, wf.ReviewStartedSignal, r.ID, wf.ReviewStarted{Kind: r.Kind, RequestID: r.ID})
	if err != nil {
		return models.ReviewSession{}, err
	}
	started.answer(ctx, nil)
	return sess, nil
}

// recordReflectionVerdict is recordVerdict for a reflection target.
func (s *Service) recordReflectionVerdict(ctx context.Context, sess models.ReviewSession, req models.ReviewRequest, v Verdict) (map[string]any, error) {
	moved, err := reflectionTarget{}.moved(req.Kind, v)
	if err != nil {
		return nil, err
	}
	if _, err := s.reflectionState(ctx, req.TargetID); err != nil {
		return nil, err
	}
	sig := wf.ReviewVerdict{Kind: req.Kind, RequestID: req.ID, Verdict: v.Verdict, ReturnTo: v.ReturnTo, Synopsis: v.Synopsis, Notes: v.Notes,
		Findings: v.Findings, Evidence: v.Evidence}
	var answered *notice
	_, err = models.SubmitVerdict(ctx, s.DB, sess.ID, v.session(),
		func(models.ReviewRequest) (err error) {
			answered, err = s.notifyReflection(ctx, req.TargetID, wf.ReviewVerdictSignal, req.ID, sig)
			return err
		})
	if err != nil {
		return nil, err
	}
	answered.answer(ctx, nil)
	return verdictAnswer(sess, req, v, moved), nil
}
