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
