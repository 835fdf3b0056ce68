package gateengine

import "slices"

// Blocked says why an action cannot run now.
type Blocked struct {
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// Decision is the evaluated gate of a target.
type Decision struct {
	Gate            string    `json:"current_gate"`
	NextAction      string    `json:"next_action"`
	AllowedTools    []string  `json:"allowed_actions"`
	Transitions     []string  `json:"allowed_transitions"`
	BlockedActions  []Blocked `json:"blocked_actions"`
	MissingEvidence []string  `json:"missing_evidence"`
	// ArtifactRole is the artifact the next action needs, if any.
	ArtifactRole string `json:"artifact_role,omitempty"`
	// ReviewEvidence is the review the target waits for, if any.
	ReviewEvidence Evidence `json:"review_evidence,omitempty"`
	// ReviewLevel is that review's level.
	ReviewLevel Level `json:"review_level,omitempty"`
}

// Evaluate picks the gate of status given facts: the first unmet
// requirement names it; with all met, the forward transition does. An
// override of the stage that holds then changes the next action only.
func (m *Machine[S]) Evaluate(status S, f Facts) Decision {
	st, ok := m.StageOf(status)
	if !ok {
		return Decision{Gate: "terminal", NextAction: "none", AllowedTools: []string{}, Transitions: []string{},
			BlockedActions: []Blocked{}, MissingEvidence: []string{}}
	}
	d := Decision{AllowedTools: []string{}, BlockedActions: []Blocked{}, MissingEvidence: []string{}, Transitions: []string{}}
	var first *Requirement
	locked := ""
	for i := range st.Requirements {
		r := &st.Requirements[i]
		lv := level(f, r)
		if r.LocksSide && (lv == Requested || lv == Satisfied) {
			locked = string(r.Evidence)
		}
		if lv == Satisfied {
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
		d.Transitions = append(d.Transitions, st.Forward.Transition)
	} else {
		unmet(&d, first, level(f, first), f)
		d.BlockedActions = append(d.BlockedActions, Blocked{Action: st.Forward.Transition, Reason: d.Gate})
	}
	for _, side := range st.Side {
		if locked != "" {
			d.BlockedActions = append(d.BlockedActions, Blocked{Action: side, Reason: locked + "_in_flight"})
			continue
		}
		d.Transitions = append(d.Transitions, side)
	}
	override(&d, st.Overrides, f)
	if len(d.Transitions) > 0 && !slices.Contains(d.AllowedTools, m.TransitionTool) {
		d.AllowedTools = append(d.AllowedTools, m.TransitionTool)
	}
	if !slices.Contains(d.AllowedTools, m.StatusTool) {
		d.AllowedTools = append(d.AllowedTools, m.StatusTool)
	}
	return d
}

// unmet fills d from the first unmet requirement r at level lv.
func unmet(d *Decision, r *Requirement, lv Level, f Facts) {
	d.Gate, d.NextAction = r.Gate, r.NextAction
	d.AllowedTools = append(d.AllowedTools, r.AllowedTools...)
	switch r.Kind {
	case KindArtifact, KindLenses:
		d.ArtifactRole = string(r.Evidence)
		if lv == Invalid {
			d.Gate, d.NextAction = string(r.Evidence)+"_invalid", "fix_"+string(r.Evidence)+"_artifact"
		}
		if lv == Missing && r.ActiveGate != "" && f[r.ActiveWhen] == Satisfied {
			d.Gate = r.ActiveGate
		}
	case KindReview:
		d.ReviewEvidence, d.ReviewLevel = r.Evidence, lv
		if lv == Started {
			d.NextAction = r.WaitAction
		}
		if (lv == Requested || lv == Started) && r.RequestedGate != "" {
			d.Gate = r.RequestedGate
		}
	case KindDependencies, KindAdvance:
		switch {
		case lv == Invalid:
			d.Gate, d.NextAction = r.InvalidGate, r.InvalidAction
		case lv == Requested && r.WaitAction != "":
			d.NextAction = r.WaitAction
		}
	}
}
