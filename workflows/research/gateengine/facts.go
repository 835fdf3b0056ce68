package gateengine

// Evidence names one thing a requirement needs.
type Evidence string

// Level is how far a piece of evidence has come.
type Level int

const (
	// Missing means no artifact, no review request, dependencies pending.
	Missing Level = iota
	// Invalid means an artifact that fails its check, a failed dependency or advance.
	Invalid
	// Requested means a review requested and not started, or an advance intended.
	Requested
	// Started means a reviewer opened a session.
	Started
	// Satisfied means the evidence is there (a passing review on the current snapshot).
	Satisfied
)

// Facts are the evidence levels of one target; absent keys are Missing,
// except a dependencies row's, which is Satisfied when there are none.
type Facts map[Evidence]Level

// Kind says how a requirement's evidence is judged and reported.
type Kind int

const (
	// KindArtifact is an uploaded artifact of a role that must pass its check.
	KindArtifact Kind = iota
	// KindReview is a review whose pass, pinned to the current snapshot, is needed.
	KindReview
	// KindDependencies is the settled state of the experiments a target depends on.
	KindDependencies
	// KindLenses is one lens doc per roster lens, judged as an artifact.
	KindLenses
	// KindProposal is a consolidation proposal of the current revision.
	KindProposal
	// KindAdvance is the central advance: Requested while intended,
	// Satisfied once bound, Invalid once failed or stale.
	KindAdvance
)

// level is r's evidence level in f.
func level(f Facts, r *Requirement) Level {
	lv, ok := f[r.Evidence]
	if !ok && r.Kind == KindDependencies {
		return Satisfied
	}
	return lv
}
