package temporalerr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/converter"
)

// Querier is the part of the Temporal client a workflow query needs.
type Querier interface {
	QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, args ...any) (converter.EncodedValue, error)
}

// Backoff bounds the retries of one read: the whole budget, the first
// wait and the longest wait.
type Backoff struct {
	Budget, First, Max time.Duration
}

// ErrBudgetSpent wraps the last transient failure of a query whose
// retry budget ran out.
var ErrBudgetSpent = errors.New("temporal: no answer within the retry budget")

// Query runs query on workflowID's latest run and decodes the answer
// into out, retrying Transient failures with doubling waits until b's
// budget is spent (then ErrBudgetSpent) or ctx ends. One attempt may
// take the rest of the budget: Temporal itself hands a query that a dead
// sticky worker never picked up to a live worker (after the sticky
// schedule-to-start timeout), and cutting the attempt short would cut
// that hand-over short too. Any other error (NotFound, a handler's
// failure) is returned as it is.
func Query(ctx context.Context, q Querier, workflowID, query string, out any, b Backoff) error {
	deadline := time.Now().Add(b.Budget)
	wait := b.First
	for {
		qctx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), time.Second))
		v, err := q.QueryWorkflow(qctx, workflowID, "", query)
		if err == nil {
			err = v.Get(out)
		}
		cancel()
		if err == nil || ctx.Err() != nil || !Transient(err) {
			return err
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("%w: %w", ErrBudgetSpent, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, b.Max)
	}
}
