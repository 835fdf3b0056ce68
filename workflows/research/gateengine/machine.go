package gateengine

// Status is a lifecycle status of one domain.
type Status interface {
	~string
	// Terminal reports whether no transition leaves the status.
	Terminal() bool
}

// Requirement is one row of a status: while Evidence is not satisfied the
// target sits at Gate with NextAction, and may call AllowedTools.
type Requirement struct {
	Evidence     Evidence
	Kind         Kind
	Gate         string
	NextAction   string
	AllowedTools []string
	// WaitAction is the next action of a review row once the review
	// started, and of an advance row once the advance is intended.
	WaitAction string
	// RequestedGate, when set, replaces Gate for a review row once the
	// review is requested or started.
	RequestedGate string
	// InvalidGate and InvalidAction describe a failed dependencies or
	// advance row (an artifact row derives them from its role).
	InvalidGate, InvalidAction string
	// ActiveGate, when set, replaces Gate for a missing artifact while the
	// ActiveWhen evidence is Satisfied (a sandbox running, say).
	ActiveGate string
	ActiveWhen Evidence
	// LocksSide blocks the side transitions while this evidence is
	// Requested or Satisfied (a central advance in flight or bound).
	LocksSide bool
}

// Forward is what a status offers once every requirement is satisfied.
type Forward struct {
	Transition   string
	Gate         string
	NextAction   string
	AllowedTools []string
}

// Stage is one open status of a machine.
type Stage[S Status] struct {
	Status       S
	Requirements []Requirement
	Forward      Forward
	// Side lists transitions allowed at any gate of the status.
	Side []string
	// Overrides change the next action at any gate of the status while
	// their condition holds; the first that holds wins.
	Overrides []Override
}

// Move is where a transition takes a target; which statuses it leaves is
// the table's (a stage's Forward and Side).
type Move[S Status] struct {
	Name string
	To   S
	// NewAttempt starts a new attempt (attempt_index + 1).
	NewAttempt bool
}

// Machine is one domain's gate machine.
type Machine[S Status] struct {
	// Noun names the machine in errors ("" for the experiment, whose
	// messages predate the reflection's).
	Noun   string
	Stages []Stage[S]
	Moves  []Move[S]
	// Aliases maps next_action words accepted as transition names.
	Aliases map[string]string
	// TransitionTool and StatusTool are added to allowed_actions: the
	// first while a transition is allowed, the second always.
	TransitionTool, StatusTool string
}

// StageOf returns the stage of an open status.
func (m *Machine[S]) StageOf(s S) (Stage[S], bool) {
	for _, st := range m.Stages {
		if st.Status == s {
			return st, true
		}
	}
	return Stage[S]{}, false
}

// MoveOf resolves a transition name or alias.
func (m *Machine[S]) MoveOf(name string) (Move[S], bool) {
	if a, ok := m.Aliases[name]; ok {
		name = a
	}
	for _, mv := range m.Moves {
		if mv.Name == name {
			return mv, true
		}
	}
	return Move[S]{}, false
}
