package reflectgates

import (
	"fmt"
	"slices"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// Evaluate picks the gate of status given facts: the first unmet
// requirement names it; with all met, the forward transition does.
func Evaluate(status Status, f gates.Facts) gates.Decision {
	st, ok := StageOf(status)
	if !ok {
		return gates.Decision{Gate: "terminal", NextAction: "none", AllowedTools: []string{}, Transitions: []string{},
			BlockedActions: []gates.Blocked{}, MissingEvidence: []string{}}
	}
	d := gates.Decision{AllowedTools: []string{}, BlockedActions: []gates.Blocked{}, MissingEvidence: []string{}, Transitions: []string{}}
	var first *Requirement
	locked := ""
	for i := range st.Requirements {
		r := &st.Requirements[i]
		lv := f[r.Evidence]
		if r.LocksSide && (lv == gates.Requested || lv == gates.Satisfied) {
			locked = string(r.Evidence)
		}
		if lv == gates.Satisfied {
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
		d.Gate, d.NextAction = first.Gate, first.NextAction
		d.AllowedTools = append(d.AllowedTools, first.AllowedTools...)
		lv := f[first.Evidence]
		switch first.Kind {
		case KindLenses, KindArtifact:
			d.ArtifactRole = string(first.Evidence)
			if lv == gates.Invalid {
				d.Gate, d.NextAction = string(first.Evidence)+"_invalid", "fix_"+string(first.Evidence)+"_artifact"
			}
		case KindReview:
			d.ReviewEvidence, d.ReviewLevel = first.Evidence, lv
			if lv == gates.Started {
				d.NextAction = first.WaitAction
			}
			if (lv == gates.Requested || lv == gates.Started) && first.RequestedGate != "" {
				d.Gate = first.RequestedGate
			}
		case KindAdvance:
			switch lv {
			case gates.Invalid:
				d.Gate, d.NextAction = first.InvalidGate, first.InvalidAction
			case gates.Requested:
				d.NextAction = first.WaitAction
			}
		}
		d.BlockedActions = append(d.BlockedActions, gates.Blocked{Action: st.Forward.Transition, Reason: d.Gate})
	}
	for _, side := range st.Side {
		if locked != "" {
			d.BlockedActions = append(d.BlockedActions, gates.Blocked{Action: side, Reason: locked + "_in_flight"})
			continue
		}
		d.Transitions = append(d.Transitions, side)
	}
	if len(d.Transitions) > 0 && !slices.Contains(d.AllowedTools, toolTransition) {
		d.AllowedTools = append(d.AllowedTools, toolTransition)
	}
	if !slices.Contains(d.AllowedTools, toolStatus) {
		d.AllowedTools = append(d.AllowedTools, toolStatus)
	}
	return d
}

// UnknownTransitionError names a transition that does not exist.
type UnknownTransitionError struct{ Name string }

func (e *UnknownTransitionError) Error() string {
	return fmt.Sprintf("unknown reflection transition %q", e.Name)
}

// Check decides whether transition name may run at status with facts and
// returns the move it makes; a refusal is a *gates.BlockedError.
func Check(status Status, f gates.Facts, name string) (Move, error) {
	m, ok := MoveOf(name)
	if !ok {
		return Move{}, &UnknownTransitionError{Name: name}
	}
	d := Evaluate(status, f)
	if slices.Contains(d.Transitions, m.Name) {
		return m, nil
	}
	blocked := d.BlockedActions
	if i := slices.IndexFunc(blocked, func(b gates.Blocked) bool { return b.Action == m.Name }); i > 0 {
		blocked = append([]gates.Blocked{blocked[i]}, append(slices.Clone(blocked[:i]), blocked[i+1:]...)...)
	} else if i < 0 {
		reason := "not_allowed_from_" + string(status)
		if status.Terminal() {
			reason = "terminal"
		}
		blocked = append([]gates.Blocked{{Action: m.Name, Reason: reason}}, blocked...)
	}
	return Move{}, &gates.BlockedError{Transition: name, Status: gates.Status(status), Gate: d.Gate, AllowedActions: d.Transitions,
		BlockedActions: blocked, MissingEvidence: d.MissingEvidence}
}
