package reflectgates

import (
	"fmt"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// rejections are the verdict routes of each review kind. A reflection
// review rejection must say synthesizing (same attempt, lens docs kept) or
// reflecting (new attempt); a consolidation review rejection may only
// return to consolidating, which opens a new proposal revision.
var rejections = map[string]gateengine.Rejection[Status]{
	"reflection": {
		Routes:  map[string]gateengine.Route[Status]{string(Synthesizing): {To: Synthesizing}, string(Reflecting): {To: Reflecting, NewAttempt: true}},
		Missing: "a reflection review rejection must say return_to synthesizing (same attempt) or reflecting (new attempt)",
		Other:   "a reflection review can only return to synthesizing or reflecting",
	},
	"consolidation": {
		Routes: map[string]gateengine.Route[Status]{"": {To: Consolidating, NewRevision: true}, string(Consolidating): {To: Consolidating, NewRevision: true}},
		Other:  "a consolidation review can only return to consolidating",
	},
}

// RouteVerdict decides where verdict with returnTo sends a reflection whose
// review of kind ("reflection" or "consolidation") is pending.
func RouteVerdict(kind, verdict, returnTo string) (gateengine.Route[Status], error) {
	rej, ok := rejections[kind]
	if !ok {
		return gateengine.Route[Status]{}, &gateengine.VerdictError{Field: "verdict", Message: fmt.Sprintf("no reflection review of kind %q", kind)}
	}
	return gateengine.RouteVerdict(rej, verdict, returnTo)
}
