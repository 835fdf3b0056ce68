package gateengine

import (
	"fmt"
	"slices"
	"strings"
)

// BlockedError refuses a transition the current gate does not allow.
type BlockedError struct {
	Transition      string    `json:"transition"`
	Status          string    `json:"status"`
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
type UnknownTransitionError struct {
	// Noun is the machine's Noun.
	Noun string
	Name string
}

func (e *UnknownTransitionError) Error() string {
	if e.Noun == "" {
		return fmt.Sprintf("unknown transition %q", e.Name)
	}
	return fmt.Sprintf("unknown %s transition %q", e.Noun, e.Name)
}

// Check decides whether transition name may run at status with facts and
// returns the move it makes; a refusal is a *BlockedError whose first
// blocked action is the refused one.
func (m *Machine[S]) Check(status S, f Facts, name string) (Move[S], error) {
	mv, ok := m.MoveOf(name)
	if !ok {
		return Move[S]{}, &UnknownTransitionError{Noun: m.Noun, Name: name}
	}
	d := m.Evaluate(status, f)
	if slices.Contains(d.Transitions, mv.Name) {
		return mv, nil
	}
	blocked := d.BlockedActions
	if i := slices.IndexFunc(blocked, func(b Blocked) bool { return b.Action == mv.Name }); i > 0 {
		blocked = append([]Blocked{blocked[i]}, append(slices.Clone(blocked[:i]), blocked[i+1:]...)...)
	} else if i < 0 {
		reason := "not_allowed_from_" + string(status)
		if status.Terminal() {
			reason = "terminal"
		}
		blocked = append([]Blocked{{Action: mv.Name, Reason: reason}}, blocked...)
	}
	return Move[S]{}, &BlockedError{Transition: name, Status: string(status), Gate: d.Gate, AllowedActions: d.Transitions,
		BlockedActions: blocked, MissingEvidence: d.MissingEvidence}
}
