package research

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/researchclient"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// SandboxActivities provision, destroy and mirror sandboxes.
type SandboxActivities struct {
	DB        *gorm.DB
	Providers sandbox.Providers
	// HostQueue is the task queue only this worker host polls; a local
	// sandbox provisioned here answers it, so the workflow sends the
	// machine's later activities back to this host.
	HostQueue string
	// Temporal tells an attached experiment when its sandbox starts or
	// stops running (nil: nobody is told, as in replay and unit tests).
	Temporal client.Client
}

// ProvisionSandbox creates the machine; providers make it idempotent per
// uid, so a retry answers the same endpoint. It also re-provisions a
// running sandbox whose machine a restart lost (in.Port: the port to keep).
// A local sandbox's endpoint names this host's queue (HostQueue). The
// inspection token of a Pod's agent comes from the sandbox's row, never
// from the input, and goes back in no answer: it stays out of history.
func (a *SandboxActivities) ProvisionSandbox(ctx context.Context, in wf.SandboxInput) (wf.SandboxEndpoint, error) {
	p, err := a.Providers.Get(in.Provider)
	if err != nil {
		return wf.SandboxEndpoint{}, temporal.NewNonRetryableApplicationError(err.Error(), "unknown_provider", err)
	}
	token, err := a.inspectToken(ctx, in.UID)
	if err != nil {
		return wf.SandboxEndpoint{}, err
	}
	ep, err := p.Provision(ctx, sandbox.Spec{UID: in.UID, Provider: in.Provider, InstanceType: in.InstanceType, Region: in.Region,
		CPU: in.CPU, MemoryMB: in.MemoryMB, GPU: in.GPU, PublicKey: in.PublicKey, TimeLimit: in.TimeLimit, Port: in.Port,
		MaxLifetime: in.MaxLifetime, InspectToken: token})
	if errors.Is(err, sandbox.ErrBadPublicKey) {
		return wf.SandboxEndpoint{}, temporal.NewNonRetryableApplicationError(err.Error(), "bad_public_key", err)
	}
	if err != nil {
		return wf.SandboxEndpoint{}, err
	}
	out := wf.SandboxEndpoint{Host: ep.Host, Port: ep.Port, User: ep.User, Workdir: ep.Workdir, InspectURL: ep.InspectURL, InspectToken: ep.InspectToken}
	if p.Name() == sandbox.LocalName {
		out.HostQueue = a.HostQueue
	}
	return out, nil
}

// inspectToken is the sandbox row's inspection token ("" without a
// database, or for a row from before tokens).
func (a *SandboxActivities) inspectToken(ctx context.Context, uid string) (string, error) {
	if a.DB == nil {
		return "", nil
	}
	var rows []models.Sandbox
	if err := a.DB.WithContext(ctx).Select("uid", "inspect_token").Where("uid = ?", uid).Limit(1).Find(&rows).Error; err != nil || len(rows) == 0 {
		return "", err
	}
	return rows[0].InspectToken, nil
}

// DestroySandbox destroys the machine; destroying a gone one succeeds.
func (a *SandboxActivities) DestroySandbox(ctx context.Context, in wf.SandboxDestroy) error {
	p, err := a.Providers.Get(in.Provider)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), "unknown_provider", err)
	}
	return p.Destroy(ctx, in.UID)
}

// RecordSandbox mirrors the workflow's state into the sandbox row, then
// tells the experiment it is attached to whether it runs (the
// execution_active gate). Both steps are idempotent, so a retry repeats
// them harmlessly.
func (a *SandboxActivities) RecordSandbox(ctx context.Context, r wf.SandboxRecord) error {
	if err := models.MirrorSandbox(ctx, a.DB, models.SandboxUpdate{UID: r.UID, Status: r.Status, Host: r.Endpoint.Host,
		Port: r.Endpoint.Port, User: r.Endpoint.User, Workdir: r.Endpoint.Workdir, HostQueue: r.Endpoint.HostQueue, ExpiresAt: r.ExpiresAt, Error: r.Error}, time.Now().UTC()); err != nil {
		return err
	}
	if a.Temporal == nil {
		return nil
	}
	var sb models.Sandbox
	if err := a.DB.WithContext(ctx).Where("uid = ?", r.UID).Take(&sb).Error; err != nil {
		return err
	}
	report := wf.SandboxActivity{SandboxUID: r.UID, Running: r.Status == models.SandboxRunning}
	if !report.Running {
		report.Ended = r.EndReason
	}
	return researchclient.NotifySandboxReport(ctx, a.Temporal, sb.ExperimentID, report)
}
