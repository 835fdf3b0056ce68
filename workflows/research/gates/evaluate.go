package gates

import (
	"fmt"
	"strings"
)

// Level is how far a piece of evidence has come.
type Level int

const (
	// Missing: no artifact, no review request, dependencies pending.
	Missing Level = iota
	// Invalid: an artifact that fails its check, or a failed dependency.
	Invalid
	// Requested: a review was requested and not started.
	Requested
	// Started: a reviewer opened a session.
	Started
	// Satisfied: the evidence is there (a passing review on the current snapshot).
	Satisfied
)

// Facts are the evidence levels of one experiment; absent keys are Missing,
// except dependencies, which are Satisfied when the experiment has none.
type Facts map[Evidence]Level

// Blocked says why an action cannot run now.
type Blocked struct {
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// Decision is the evaluated gate of an experiment.
type Decision struct {
	Gate            string    `json:"current_gate"`
	NextAction      string    `json:"next_action"`
	AllowedTools    []string  `json:"allowed_actions"`
	Transitions     []string  `json:"allowed_transitions"`
	BlockedActions  []Blocked `json:"blocked_actions"`
	MissingEvidence []string  `json:"missing_evidence"`
	// ArtifactRole is the artifact the next action needs, if any.
	ArtifactRole string `json:"artifact_role,omitempty"`
	// ReviewEvidence is the review the experiment waits for, if any.
	ReviewEvidence Evidence `json:"review_evidence,omitempty"`
	// ReviewLevel is that review's level.
	ReviewLevel Level `json:"review_level,omitempty"`
}

// Evaluate picks the gate of status given facts: the first unmet
// requirement names it; with all met, the forward transition does.
func Evaluate(status Status, f Facts) Decision {
	st, ok := StageOf(status)
	if !ok {
		return Decision{Gate: "terminal", NextAction: "none", AllowedTools: []string{}, Transitions: []string{}, BlockedActions: []Blocked{}, MissingEvidence: []string{}}
	}
	d := Decision{AllowedTools: []string{}, BlockedActions: []Blocked{}, MissingEvidence: []string{}}
	var first *Requirement
	for i := range st.Requirements {
		r := &st.Requirements[i]
		if level(f, r) == Satisfied {
			continue
		}
		d.MissingEvidence = append(d.MissingEvidence, string(r.Evidence))
		if first == nil {
			first = r
		}
	}
	if first == nil {
		d.Gate, d.NextAction = st.Forward.Gate, st.Forward.NextAction
		d.AllowedTools = append(d.AllowedTools, st.Forward.AllowedTools...)
		d.Transitions = append([]string{st.Forward.Transition}, st.Side...)
	} else {
		d.Gate, d.NextAction = first.Gate, first.NextAction
		d.AllowedTools = append(d.AllowedTools, first.AllowedTools...)
		lv := level(f, first)
		switch first.Kind {
		case KindArtifact:
			d.ArtifactRole = string(first.Evidence)
			if lv == Invalid {
				d.Gate, d.NextAction = string(first.Evidence)+"_invalid", "fix_"+string(first.Evidence)+"_artifact"
			}
			if lv == Missing && first.ActiveGate != "" && f[EvSandboxRunning] == Satisfied {
				d.Gate = first.ActiveGate
			}
		case KindReview:
			d.ReviewEvidence, d.ReviewLevel = first.Evidence, lv
			if lv == Started {
				d.NextAction = first.WaitAction
			}
		case KindDependencies:
			if lv == Invalid {
				d.Gate, d.NextAction = first.InvalidGate, first.InvalidAction
			}
		}
		d.Transitions = append([]string{}, st.Side...)
		d.BlockedActions = append(d.BlockedActions, Blocked{Action: st.Forward.Transition, Reason: d.Gate})
	}
	if len(d.Transitions) > 0 && !contains(d.AllowedTools, toolTransition) {
		d.AllowedTools = append(d.AllowedTools, toolTransition)
	}
	if !contains(d.AllowedTools, toolStatus) {
		d.AllowedTools = append(d.AllowedTools, toolStatus)
	}
	return d
}

func level(f Facts, r *Requirement) Level {
	lv, ok := f[r.Evidence]
	if !ok && r.Kind == KindDependencies {
		return Satisfied
	}
	return lv
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// BlockedError refuses a transition the current gate does not allow.
type BlockedError struct {
	Transition      string    `json:"transition"`
	Status          Status    `json:"status"`
	Gate            string    `json:"current_gate"`
	AllowedActions  []string  `json:"allowed_transitions"`
	BlockedActions  []Blocked `json:"blocked_actions"`
	MissingEvidence []string  `json:"missing_evidence"`
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("transition %q is not allowed at status %s, gate %s (allowed: %s)",
		e.Transition, e.Status, e.Gate, strings.Join(e.AllowedActions, ", "))
}

// UnknownTransitionError names a transition that does not exist.
type UnknownTransitionError struct{ Name string }

func (e *UnknownTransitionError) Error() string {
	return fmt.Sprintf("unknown transition %q", e.Name)
}

// Check decides whether transition name may run at status with facts and
// returns the move it makes.
func Check(status Status, f Facts, name string) (Move, error) {
	m, ok := MoveOf(name)
	if !ok {
		return Move{}, &UnknownTransitionError{Name: name}
	}
	d := Evaluate(status, f)
	if contains(d.Transitions, m.Name) {
		return m, nil
	}
	blocked := d.BlockedActions
	if len(blocked) == 0 || blocked[0].Action != m.Name {
		reason := "not_allowed_from_" + string(status)
		if status.Terminal() {
			reason = "terminal"
		}
		blocked = append([]Blocked{{Action: m.Name, Reason: reason}}, blocked...)
	}
	return Move{}, &BlockedError{Transition: name, Status: status, Gate: d.Gate, AllowedActions: d.Transitions,
		BlockedActions: blocked, MissingEvidence: d.MissingEvidence}
}
