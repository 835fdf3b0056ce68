package research

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/agent"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// InspectSandbox answers an inspection of a local sandbox held by this
// host: its runs (long-polled, heartbeating), its files, one chunk of a
// file or a file's digest. A bad path answers a non-retryable typed error.
func (a *SandboxActivities) InspectSandbox(ctx context.Context, in wf.SandboxInspectRequest) (wf.SandboxInspectResult, error) {
	p, err := a.Providers.Get(sandbox.LocalName)
	if err != nil {
		return wf.SandboxInspectResult{}, temporal.NewNonRetryableApplicationError(err.Error(), wf.InspectErrBadRequest, err)
	}
	local, ok := p.(*sandbox.Local)
	if !ok {
		return wf.SandboxInspectResult{}, temporal.NewNonRetryableApplicationError("the local provider is unavailable on this host", wf.InspectErrBadRequest, nil)
	}
	out, err := agent.Answer(ctx, local, in, func() { activity.RecordHeartbeat(ctx) })
	if typ := agent.ErrorType(err); typ != "" {
		return out, temporal.NewNonRetryableApplicationError(err.Error(), typ, nil)
	}
	return out, err
}
