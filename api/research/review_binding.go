package research

import (
	"encoding/json"

	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// mayOpenReview refuses a reviewer the review's rules exclude: a human
// review is opened only by an operator, and no agent key reviews what it
// requested a review of (the session ids a caller names prove nothing).
// Operators are trusted people and may answer their own requests.
func mayOpenReview(r models.ReviewRequest, p platform.Principal) error {
	operator := p.Role == platform.RoleOperator
	if r.Role == models.RoleHuman && !operator {
		return &ToolError{Code: CodeForbidden, Pointer: "/review_request_id", Reason: ReasonHumanReview,
			Message: "a human review is answered by an operator (the operator console), not by an agent key"}
	}
	if p.CredentialID == "" || (!operator && p.CredentialID == r.ProducerCredential) {
		return &ToolError{Code: CodeForbidden, Pointer: "/reviewer_capability", Reason: ReasonSelfReview,
			Message: "the credential that requested a review cannot review it; the reviewer needs a credential of its own"}
	}
	return nil
}

// newReviewSession is the session p opens on r, bound to p's credential.
func newReviewSession(r models.ReviewRequest, p platform.Principal, callerSessionID, agent string) models.ReviewSession {
	return models.ReviewSession{ID: "rs_" + models.RandomHex(16), RequestID: r.ID, CallerSessionID: callerSessionID,
		DeclaredAgent: agent, OpenedByCredential: p.CredentialID, OpenedByRole: string(p.Role)}
}

// session is the verdict as the session row stores it.
func (v Verdict) session() models.ReviewSession {
	s := models.ReviewSession{Verdict: v.Verdict, ReturnTo: v.ReturnTo, Synopsis: v.Synopsis, Notes: v.Notes}
	if len(v.Findings) > 0 {
		raw, _ := json.Marshal(v.Findings)
		s.FindingsJSON = string(raw)
	}
	if len(v.Evidence) > 0 {
		raw, _ := json.Marshal(v.Evidence)
		s.EvidenceJSON = string(raw)
	}
	return s
}

// decodedJSON is a stored JSON column's value (nil when empty).
func decodedJSON(raw string) any {
	if raw == "" {
		return nil
	}
	var v any
	_ = json.Unmarshal([]byte(raw), &v)
	return v
}

// reviewRoleFits refuses a role that cannot review kind in project p: the
// kind's own reviewer, human or automated_check, and only human where the
// project's operator marked the kind human (so an agent cannot avoid the
// human review by choosing another role).
func reviewRoleFits(p models.Project, kind, role string) error {
	if p.RequiresHumanReview(kind) && role != models.RoleHuman {
		return &ToolError{Code: CodeForbidden, Pointer: "/role", Reason: ReasonHumanReviewRequired,
			Message: "this project's " + kind + " reviews are human: request role human, which an operator answers"}
	}
	if role != kind+"_reviewer" && role != models.RoleHuman && role != "automated_check" {
		return toolErr(CodeInvalidInput, "/role", "the %s review needs role %s_reviewer, human or automated_check", kind, kind)
	}
	return nil
}

// reviewRoleOf is the role a review of kind in p is requested with.
func reviewRoleOf(p models.Project, kind string) string {
	if p.RequiresHumanReview(kind) {
		return models.RoleHuman
	}
	return kind + "_reviewer"
}
