package research

import (
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// Error codes a ToolError carries (its "code" field), the models' codes
// where they share one; statusOf maps each to the REST mirror's status.
const (
	// CodeInvalidInput: the arguments are wrong; nothing changed.
	CodeInvalidInput = models.CodeInvalid
	// CodeForbidden: this credential may not do that.
	CodeForbidden = models.CodeForbidden
	// CodeNotFound: no such project, target, session or object here.
	CodeNotFound = models.CodeNotFound
	// CodeConflict: the target changed under the call, or it was already done.
	CodeConflict = models.CodeConflict
	// CodeGateBlocked: the workflow's gate does not allow that now.
	CodeGateBlocked = "gate_blocked"
	// CodeExpired: a token, capability or object outlived its lifetime.
	CodeExpired = models.CodeExpired
	// CodeUnavailable: a dependency (Temporal, storage) did not answer; retry.
	CodeUnavailable = "unavailable"
	// CodeUnsupported: this deployment cannot do that (a provider lacks it).
	CodeUnsupported = "unsupported"
	// CodeInternal: a bug; the details are in the server log.
	CodeInternal = "internal"
	// CodeUnauthorized: the request carries no usable credential (the
	// REST layer's code, answered before any tool runs).
	CodeUnauthorized = "unauthorized"
)

// Reasons a ToolError carries beside its code, where a caller needs to
// tell one refusal of a code from another.
const (
	// ReasonProjectLimit: the project has as many open experiments as it may.
	ReasonProjectLimit = "project_limit"
	// ReasonReflectionRequired: enough experiments finished that a
	// reflection must be published first.
	ReasonReflectionRequired = "reflection_required"
	// ReasonToolVisibility: the tool is hidden from this credential.
	ReasonToolVisibility = "tool_visibility_forbidden"
	// ReasonReviewSessionBound: a review session is answered only by the
	// credential that started it.
	ReasonReviewSessionBound = "review_session_bound"
	// ReasonHumanReview: a human review is answered by an operator, not by
	// an agent key.
	ReasonHumanReview = "human_review"
	// ReasonSelfReview: the credential that requested a review cannot
	// review it.
	ReasonSelfReview = "self_review"
	// ReasonHumanReviewRequired: the project's reviews of this kind are
	// human, so only role human may be requested.
	ReasonHumanReviewRequired = "human_review_required"
	// reasonUploadRejected: the uploaded bytes did not match the declared
	// sha256 and size_bytes; nothing was kept (code invalid_input).
	reasonUploadRejected = "upload_rejected"
)

// Target types a review or an artifact attaches to.
const (
	targetExperiment = wf.TargetExperiment
	targetReflection = wf.TargetReflection
)

// Review kinds: what a review gate reviews. A kind's own reviewer role is
// kind + "_reviewer".
const (
	kindDesign        = "design"
	kindExperiment    = "experiment"
	kindReflection    = "reflection"
	kindConsolidation = "consolidation"
)
