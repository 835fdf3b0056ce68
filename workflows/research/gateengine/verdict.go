package gateengine

import "fmt"

// Verdicts a reviewer may give.
const (
	VerdictPass         = "pass"
	VerdictNeedsChanges = "needs_changes"
	VerdictFail         = "fail"
)

// Route is where a verdict sends a target.
type Route[S Status] struct {
	// Moves is false for a pass: the producer still calls the transition.
	Moves bool
	To    S
	// NewAttempt starts a new attempt.
	NewAttempt bool
	// NewRevision asks for a new consolidation proposal revision.
	NewRevision bool
}

// Rejection is where a review's needs_changes or fail may send a target,
// by return_to; the "" key, when present, is the route of an empty
// return_to. Missing refuses an empty return_to without a "" route, Other
// a return_to without a route.
type Rejection[S Status] struct {
	Routes         map[string]Route[S]
	Missing, Other string
}

// VerdictError refuses a verdict or return_to that does not fit the status.
type VerdictError struct {
	Field   string
	Message string
}

func (e *VerdictError) Error() string { return e.Message }

// RouteVerdict decides where verdict with returnTo sends a target whose
// rejections go along rej; a pass does not move it.
func RouteVerdict[S Status](rej Rejection[S], verdict, returnTo string) (Route[S], error) {
	switch verdict {
	case VerdictPass:
		if returnTo != "" {
			return Route[S]{}, &VerdictError{Field: "return_to", Message: "return_to is not allowed with a pass verdict"}
		}
		return Route[S]{}, nil
	case VerdictNeedsChanges, VerdictFail:
	default:
		return Route[S]{}, &VerdictError{Field: "verdict", Message: fmt.Sprintf("unknown verdict %q", verdict)}
	}
	r, ok := rej.Routes[returnTo]
	switch {
	case ok:
		r.Moves = true
		return r, nil
	case returnTo == "":
		return Route[S]{}, &VerdictError{Field: "return_to", Message: rej.Missing}
	default:
		return Route[S]{}, &VerdictError{Field: "return_to", Message: rej.Other}
	}
}
