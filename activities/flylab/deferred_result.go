package flylab

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/temporal"

	science "github.com/gatehouse/gatehouse/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// ErrTypeDeferredResultMismatch is the type of the error a snapshot's
// deferred result fails with when computing it again does not reproduce
// the artifact the call committed (a catalog that changed between the
// two): nothing is stored, and retrying cannot help.
const ErrTypeDeferredResultMismatch = "deferred_result_mismatch"

// recomputeResult computes a deferred tool result again from its call's
// arguments and checks it is the one the call committed.
func recomputeResult(d wf.DeferredResult) ([]byte, error) {
	if d.Tool != wf.ToolFind {
		return nil, mismatch("no deferred result for %s", d.Tool)
	}
	var q science.SearchQuery
	if err := decodeArgs(d.Args, &q); err != nil {
		return nil, mismatch("deferred find arguments: %v", err)
	}
	res, err := science.SearchCircuits(q)
	if err != nil {
		return nil, mismatch("deferred find: %v", err)
	}
	if res.DiscoveryDecision.ID != d.ArtifactID {
		return nil, mismatch("deferred find produced %s, the call committed %s", res.DiscoveryDecision.ID, d.ArtifactID)
	}
	return json.Marshal(res)
}

// mismatch is the non-retryable error of a deferred result that cannot be
// reproduced.
func mismatch(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), ErrTypeDeferredResultMismatch, nil)
}
