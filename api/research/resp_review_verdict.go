package research

// VerdictAnswer is the answer of review.submit and of a human verdict
// (AnswerHumanReview): the verdict recorded and, when it moved the target,
// where to. Fields follow their keys' order, as the map it replaced
// encoded them; the move's keys are absent when the target stays, and
// new_proposal_revision is set for a reflection only.
type VerdictAnswer struct {
	// NewAttempt tells whether the move starts a new attempt.
	NewAttempt *bool `json:"new_attempt,omitempty"`
	// NewProposalRevision tells whether a reflection's move asks for a
	// new consolidation proposal revision.
	NewProposalRevision *bool `json:"new_proposal_revision,omitempty"`
	// Recorded is always true: the verdict is recorded once.
	Recorded bool `json:"recorded"`
	// ReviewRequestID is the review request answered.
	ReviewRequestID string `json:"review_request_id"`
	// ReviewSessionID is the review session the verdict closed.
	ReviewSessionID string `json:"review_session_id"`
	// TargetStatus is the status the verdict moves the target to.
	TargetStatus *string `json:"target_status,omitempty"`
	// Verdict is pass, needs_changes or fail.
	Verdict string `json:"verdict"`
}
