package temporalerr

import (
	"context"
	"fmt"
	"time"
)

// Retry runs call, handing it a context bounded by what is left of b's
// budget (at least a second), until it succeeds or fails with an error
// that is not Transient; then it returns that error. Between attempts it
// waits, doubling from b.First to b.Max. When the next wait would pass
// the budget it returns ErrBudgetSpent wrapping the last failure; when
// ctx ends, the failure (or ctx's error while waiting).
func Retry(ctx context.Context, b Backoff, call func(context.Context) error) error {
	deadline := time.Now().Add(b.Budget)
	wait := b.First
	for {
		actx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), time.Second))
		err := call(actx)
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
