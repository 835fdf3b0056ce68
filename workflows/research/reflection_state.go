package research

import (
	"strconv"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// ReflectionInput starts a reflection wave.
type ReflectionInput struct {
	ProjectID    string    `json:"project_id"`
	ReflectionID string    `json:"reflection_id"`
	Title        string    `json:"title"`
	Lenses       []rg.Lens `json:"lenses"`
	// Corpus is the ids of the finished experiments snapshotted at create.
	Corpus []string `json:"corpus"`
}

// ReflectionArtifact is the ArtifactLandedSignal payload for a wave.
type ReflectionArtifact struct {
	ArtifactRef
	LensID string `json:"lens_id,omitempty"`
}

// ProposalRef is the ProposalSubmittedSignal payload.
type ProposalRef struct {
	ProposalID  string `json:"proposal_id"`
	Revision    int    `json:"proposal_revision"`
	BaseSHA     string `json:"base_sha"`
	ProposalSHA string `json:"proposal_sha"`
}

// AdvanceState is a central advance as the workflow knows it.
type AdvanceState struct {
	Revision int    `json:"proposal_revision"`
	Status   string `json:"status"`
	Expected string `json:"expected"`
	Target   string `json:"target"`
	Observed string `json:"observed,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Advance statuses (the same words as the database record's).
const (
	AdvanceIntended = "intended"
	AdvanceBound    = "bound"
	AdvanceFailed   = "failed"
	AdvanceStale    = "stale"
)

// ReflectionState is the workflow's state, returned by StateQuery.
type ReflectionState struct {
	ProjectID    string    `json:"project_id"`
	ReflectionID string    `json:"reflection_id"`
	Title        string    `json:"title"`
	Status       rg.Status `json:"status"`
	Attempt      int       `json:"attempt_index"`
	// ProposalRevision numbers consolidation proposals; a rejected or
	// unbound proposal opens the next revision.
	ProposalRevision int                    `json:"proposal_revision"`
	Revision         int                    `json:"revision"`
	Lenses           []rg.Lens              `json:"lenses"`
	Corpus           []string               `json:"corpus"`
	Artifacts        map[string]ArtifactRef `json:"artifacts"`
	Reviews          map[string]ReviewState `json:"reviews"`
	Proposal         *ProposalRef           `json:"proposal,omitempty"`
	Advance          *AdvanceState          `json:"central_advance,omitempty"`
	Advances         []AdvanceState         `json:"past_advances,omitempty"`
	RevisionContext  *RevisionContext       `json:"revision_context,omitempty"`
	Published        *PublishResult         `json:"published,omitempty"`
	History          []TransitionRecord     `json:"history"`
	// RejectedSignals are gate-opening signals no authenticated record backed.
	RejectedSignals []RejectedSignal `json:"rejected_signals,omitempty"`
}

// ArtifactKey is where an artifact of role (and lens) lives in Artifacts.
func ArtifactKey(role, lensID string) string {
	if role == string(rg.EvLensDocs) {
		return role + ":" + lensID
	}
	return role
}

// current returns the valid-or-not artifact at key of the current attempt.
func (s *ReflectionState) current(key string) (ArtifactRef, bool) {
	a, ok := s.Artifacts[key]
	return a, ok && a.Attempt == s.Attempt
}

// NextLens is the first roster lens whose doc is missing or invalid ("" if none).
func (s *ReflectionState) NextLens() string {
	for _, l := range s.Lenses {
		if a, ok := s.current(ArtifactKey(string(rg.EvLensDocs), l.ID)); !ok || !a.Valid {
			return l.ID
		}
	}
	return ""
}

// ReviewKind is the review kind pending at the status ("" if none).
func (s *ReflectionState) ReviewKind() string { return rg.ReviewKinds[s.Status].Kind }

// Facts derives the gate machine's evidence levels from the state.
func (s *ReflectionState) Facts() gateengine.Facts {
	f := gateengine.Facts{}
	lv := gateengine.Satisfied
	for _, l := range s.Lenses {
		a, ok := s.current(ArtifactKey(string(rg.EvLensDocs), l.ID))
		switch {
		case ok && !a.Valid:
			lv = gateengine.Invalid
		case !ok && lv == gateengine.Satisfied:
			lv = gateengine.Missing
		}
	}
	f[rg.EvLensDocs] = lv
	for _, ev := range []gateengine.Evidence{rg.EvProjectGraph, rg.EvReflectionDoc, rg.EvChangeSpec} {
		if a, ok := s.current(string(ev)); ok {
			f[ev] = artifactLevel(a)
		}
	}
	if s.Proposal != nil && s.Proposal.Revision == s.ProposalRevision {
		f[rg.EvProposal] = gateengine.Satisfied
	}
	if rk, ok := rg.ReviewKinds[s.Status]; ok {
		reviewFact(f, rk.Evidence, s.Reviews[rk.Kind], s.SnapshotToken)
	}
	if lastVerdictFailed(s.RevisionContext, s.History, gates.Status(rg.ReflectionReview)) && unrevised(s.History, s.Artifacts, s.Attempt) {
		f[rg.EvReflectionFailed] = gateengine.Satisfied
	}
	// A consolidation review's work is the next proposal revision.
	if lastVerdictFailed(s.RevisionContext, s.History, gates.Status(rg.Consolidating)) && f[rg.EvProposal] != gateengine.Satisfied {
		f[rg.EvConsolidationFailed] = gateengine.Satisfied
	}
	if a := s.Advance; a != nil {
		switch a.Status {
		case AdvanceIntended:
			f[rg.EvCentralAdvance] = gateengine.Requested
		case AdvanceBound:
			f[rg.EvCentralAdvance] = gateengine.Satisfied
		default:
			f[rg.EvCentralAdvance] = gateengine.Invalid
		}
	}
	return f
}

// Decision evaluates the current gate.
func (s *ReflectionState) Decision() gateengine.Decision { return rg.Evaluate(s.Status, s.Facts()) }

// SnapshotToken fingerprints what a reviewer sees: status, attempt,
// proposal revision, the current artifacts and the proposal.
func (s *ReflectionState) SnapshotToken() string {
	tail := ""
	if s.Proposal != nil {
		tail = "|proposal=" + s.Proposal.ProposalID
	}
	return fingerprint(string(s.Status)+"|"+strconv.Itoa(s.Attempt)+"|"+strconv.Itoa(s.ProposalRevision), s.Artifacts,
		func(a ArtifactRef) bool { return a.Attempt == s.Attempt }, tail)
}
