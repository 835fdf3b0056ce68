package flylab

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/temporal"

	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// ErrDeferredResultMismatch is the type of the error a snapshot's deferred
// result fails with when computing it again does not reproduce the
// artifact the call committed (a catalog that changed between the two):
// nothing is stored, and retrying cannot help.
const ErrDeferredResultMismatch = "FLYLAB_DEFERRED_RESULT_MISMATCH"

// recomputeResult computes a deferred tool result again from its call's
// arguments and checks it is the one the call committed.
func recomputeResult(d wf.DeferredResult) ([]byte, error) {
	if d.Tool != wf.ToolFind {
		return nil, temporal.NewNonRetryableApplicationError("no deferred result for "+d.Tool, ErrDeferredResultMismatch, nil)
	}
	var q science.SearchQuery
	if err := decodeArgs(d.Args, &q); err != nil {
		return nil, temporal.NewNonRetryableApplicationError("deferred find arguments: "+err.Error(), ErrDeferredResultMismatch, nil)
	}
	res, err := science.SearchCircuits(q)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("deferred find: "+err.Error(), ErrDeferredResultMismatch, nil)
	}
	if res.DiscoveryDecision.ID != d.ArtifactID {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("deferred find produced %s, the call committed %s", res.DiscoveryDecision.ID, d.ArtifactID), ErrDeferredResultMismatch, nil)
	}
	return json.Marshal(res)
}
