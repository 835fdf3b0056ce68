package gates

import "fmt"

// Verdicts a reviewer may give.
const (
	VerdictPass         = "pass"
	VerdictNeedsChanges = "needs_changes"
	VerdictFail         = "fail"
)

// Route is where a verdict sends the experiment.
type Route struct {
	// Moves is false for a pass: the producer still calls the transition.
	Moves      bool
	To         Status
	NewAttempt bool
}

// VerdictError refuses a verdict or return_to that does not fit the status.
type VerdictError struct {
	Field   string
	Message string
}

func (e *VerdictError) Error() string { return e.Message }

// RouteVerdict decides where verdict with returnTo sends an experiment at
// a review status: design review always returns to planned; experiment
// review must say planned (new attempt) or running (same attempt).
func RouteVerdict(status Status, verdict, returnTo string) (Route, error) {
	if _, ok := ReviewEvidence[status]; !ok {
		return Route{}, &VerdictError{Field: "verdict", Message: fmt.Sprintf("no review is pending at status %s", status)}
	}
	switch verdict {
	case VerdictPass:
		if returnTo != "" {
			return Route{}, &VerdictError{Field: "return_to", Message: "return_to is not allowed with a pass verdict"}
		}
		return Route{}, nil
	case VerdictNeedsChanges, VerdictFail:
	default:
		return Route{}, &VerdictError{Field: "verdict", Message: fmt.Sprintf("unknown verdict %q", verdict)}
	}
	switch status {
	case DesignReview:
		if returnTo != "" && returnTo != string(Planned) {
			return Route{}, &VerdictError{Field: "return_to", Message: "a design review can only return to planned"}
		}
		return Route{Moves: true, To: Planned}, nil
	default: // ExperimentReview
		switch returnTo {
		case string(Planned):
			return Route{Moves: true, To: Planned, NewAttempt: true}, nil
		case string(Running):
			return Route{Moves: true, To: Running}, nil
		case "":
			return Route{}, &VerdictError{Field: "return_to", Message: "an experiment review rejection must say return_to planned (new attempt) or running (same attempt)"}
		default:
			return Route{}, &VerdictError{Field: "return_to", Message: "an experiment review can only return to planned or running"}
		}
	}
}
