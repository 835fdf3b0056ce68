package reflectgates

import (
	"fmt"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// Route is where a verdict sends the reflection.
type Route struct {
	// Moves is false for a pass: the producer still calls the transition
	// (or, for a consolidation review, the central advance starts).
	Moves bool
	To    Status
	// NewAttempt starts a new reflection attempt: every lens is redone.
	NewAttempt bool
	// NewRevision asks for a new consolidation proposal revision.
	NewRevision bool
}

// RouteVerdict decides where verdict with returnTo sends a reflection whose
// review of kind ("reflection" or "consolidation") is pending. A reflection
// review rejection must say synthesizing (same attempt, lens docs kept) or
// reflecting (new attempt); a consolidation review rejection may only
// return to consolidating, which opens a new proposal revision.
func RouteVerdict(kind, verdict, returnTo string) (Route, error) {
	if kind != "reflection" && kind != "consolidation" {
		return Route{}, &gates.VerdictError{Field: "verdict", Message: fmt.Sprintf("no reflection review of kind %q", kind)}
	}
	switch verdict {
	case gates.VerdictPass:
		if returnTo != "" {
			return Route{}, &gates.VerdictError{Field: "return_to", Message: "return_to is not allowed with a pass verdict"}
		}
		return Route{}, nil
	case gates.VerdictNeedsChanges, gates.VerdictFail:
	default:
		return Route{}, &gates.VerdictError{Field: "verdict", Message: fmt.Sprintf("unknown verdict %q", verdict)}
	}
	if kind == "consolidation" {
		if returnTo != "" && returnTo != string(Consolidating) {
			return Route{}, &gates.VerdictError{Field: "return_to", Message: "a consolidation review can only return to consolidating"}
		}
		return Route{Moves: true, To: Consolidating, NewRevision: true}, nil
	}
	switch returnTo {
	case string(Synthesizing):
		return Route{Moves: true, To: Synthesizing}, nil
	case string(Reflecting):
		return Route{Moves: true, To: Reflecting, NewAttempt: true}, nil
	case "":
		return Route{}, &gates.VerdictError{Field: "return_to", Message: "a reflection review rejection must say return_to synthesizing (same attempt) or reflecting (new attempt)"}
	default:
		return Route{}, &gates.VerdictError{Field: "return_to", Message: "a reflection review can only return to synthesizing or reflecting"}
	}
}
