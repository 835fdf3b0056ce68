package gates

import (
	"fmt"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// rejections are the verdict routes of each review status: design review
// always returns to planned; experiment review must say planned (new
// attempt) or running (same attempt).
var rejections = map[Status]gateengine.Rejection[Status]{
	DesignReview: {
		Routes: map[string]gateengine.Route[Status]{"": {To: Planned}, string(Planned): {To: Planned}},
		Other:  "a design review can only return to planned",
	},
	ExperimentReview: {
		Routes:  map[string]gateengine.Route[Status]{string(Planned): {To: Planned, NewAttempt: true}, string(Running): {To: Running}},
		Missing: "an experiment review rejection must say return_to planned (new attempt) or running (same attempt)",
		Other:   "an experiment review can only return to planned or running",
	},
}

// RouteVerdict decides where verdict with returnTo sends an experiment at
// a review status.
func RouteVerdict(status Status, verdict, returnTo string) (gateengine.Route[Status], error) {
	rej, ok := rejections[status]
	if !ok {
		return gateengine.Route[Status]{}, &gateengine.VerdictError{Field: "verdict", Message: fmt.Sprintf("no review is pending at status %s", status)}
	}
	return gateengine.RouteVerdict(rej, verdict, returnTo)
}
