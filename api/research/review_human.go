package research

import (
	"context"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// Verdict is a reviewer's answer: pass, needs_changes or fail, with
// return_to for a rejection of an experiment review.
type Verdict struct {
	Verdict  string         `json:"verdict"`
	ReturnTo string         `json:"return_to,omitempty"`
	Synopsis string         `json:"synopsis"`
	Notes    string         `json:"notes,omitempty"`
	Findings []any          `json:"findings,omitempty"`
	Evidence map[string]any `json:"evidence,omitempty"`
}

// NewService builds the research service from the API's dependencies; the
// operator console builds its own to call AnswerHumanReview.
func NewService(d rest.Deps) (*Service, error) {
	cat, err := NewCatalogue(d.Config.Features)
	if err != nil {
		return nil, err
	}
	return &Service{DB: d.DB, Temporal: d.Temporal, Blobs: d.Blobs, Config: d.Config, Log: d.Log, Cat: cat}, nil
}

// AnswerHumanReview records an operator's verdict on a review requested
// with role human: the same operation as review.start followed by
// review.submit, authorized by the operator credential instead of the
// reviewer capability (which only the producer saw). It refuses
// non-operators (forbidden), other roles (forbidden), unknown requests
// (not_found), answered, superseded or expired requests (conflict,
// expired), a target that changed since the request (conflict) and a
// verdict that does not fit the review (invalid_input); a refusal changes
// nothing. Errors are *ToolError.
func (s *Service) AnswerHumanReview(ctx context.Context, operator platform.Principal, requestID string, v Verdict) (*VerdictAnswer, error) {
	out, err := s.answerHumanReview(ctx, operator, requestID, v)
	if err != nil {
		return nil, s.asToolError(ctx, "review.human", err)
	}
	return out, nil
}

func (s *Service) answerHumanReview(ctx context.Context, operator platform.Principal, requestID string, v Verdict) (*VerdictAnswer, error) {
	if operator.Role != platform.RoleOperator || operator.CredentialID == "" {
		return nil, toolErr(CodeForbidden, "", "only an operator answers a human review")
	}
	if v.Synopsis == "" {
		return nil, invalid("/synopsis", "a verdict needs a synopsis")
	}
	r, err := models.ReviewRequestByID(ctx, s.DB, requestID)
	if errors.Is(err, models.ErrNoRecord) {
		return nil, toolErr(CodeNotFound, "/review_request_id", "no review request %s", requestID)
	}
	if err != nil {
		return nil, err
	}
	if r.Role != models.RoleHuman {
		return nil, toolErr(CodeForbidden, "/review_request_id", "review request %s is for a %s, not a human", r.ID, r.Role)
	}
	// Check the verdict before opening a session, so a bad one writes nothing.
	if err := routeFor(r, v); err != nil {
		return nil, err
	}
	var sess models.ReviewSession
	switch r.Status {
	case models.ReviewRequested:
		if !s.now().Before(r.ExpiresAt) {
			return nil, toolErr(CodeExpired, "/review_request_id", "the review request expired; ask the producer for a new review.request")
		}
		if sess, err = s.openSession(ctx, r, operator, "operator:"+operator.CredentialID, "human:"+operator.Name); err != nil {
			return nil, err
		}
		r.Status = models.ReviewStarted
	case models.ReviewStarted:
		if sess, err = models.ReviewSessionOfRequest(ctx, s.DB, r.ID); err != nil {
			return nil, err
		}
	default:
		return nil, toolErr(CodeConflict, "/review_request_id", "the review request is %s; a verdict is recorded once", r.Status)
	}
	return s.recordVerdict(ctx, sess, r, v)
}

// answerHumanReviewHTTP serves POST /operator/v1/research/reviews/:id/verdict.
func (s *Service) answerHumanReviewHTTP(c *gin.Context) {
	var v Verdict
	if err := c.ShouldBindJSON(&v); err != nil {
		rest.Abort(c, http.StatusBadRequest, CodeInvalidInput, "body must be {verdict, synopsis, return_to?, notes?}")
		return
	}
	p, _ := rest.PrincipalOf(c)
	out, err := s.AnswerHumanReview(c.Request.Context(), p, c.Param("id"), v)
	if err != nil {
		te := err.(*ToolError)
		st := statusOf[te.Code]
		if st == 0 {
			st = http.StatusBadRequest
		}
		c.AbortWithStatusJSON(st, errorBody{Error: te})
		return
	}
	c.JSON(http.StatusOK, out)
}
