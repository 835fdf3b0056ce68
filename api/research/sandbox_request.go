package research

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"golang.org/x/crypto/ssh"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/kube"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// sandboxLimits are the bounds sandbox.options shows and sandbox.request
// enforces.
func (s *Service) sandboxLimits() sandboxLimitsResp {
	q := s.sandboxQuota()
	return sandboxLimitsResp{TimeLimitSeconds: sandboxTimeLimitResp{Default: int(wf.SandboxDefaultTimeLimit.Seconds()), Min: 60,
		Max: int(min(86400*time.Second, s.sandboxMaxLifetime()).Seconds())},
		ExtendMaxSeconds: int(wf.SandboxMaxExtend.Seconds()), LifetimeMaxSeconds: int(s.sandboxMaxLifetime().Seconds()),
		LiveSandboxesMax: q.MaxLive, GPUsMax: q.MaxGPUs}
}

// sandboxQuota is the per-project quota of this deployment.
func (s *Service) sandboxQuota() models.SandboxQuota {
	q := models.SandboxQuota{MaxLive: s.Config.Sandbox.MaxLivePerProject, MaxGPUs: s.Config.Sandbox.MaxGPUsPerProject}
	if q.MaxLive <= 0 {
		q.MaxLive = 4
	}
	return q
}

// sandboxMaxLifetime caps a sandbox's whole life, extends included.
func (s *Service) sandboxMaxLifetime() time.Duration {
	if s.Config.Sandbox.MaxLifetime > 0 {
		return s.Config.Sandbox.MaxLifetime
	}
	return 24 * time.Hour
}

func sandboxRequest(ctx context.Context, s *Service, c *Call) (any, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return nil, err
	}
	key, _, _, rest, err := ssh.ParseAuthorizedKey([]byte(in.PublicKey))
	if err != nil || strings.TrimSpace(string(rest)) != "" {
		return nil, invalid("/public_key", "public_key must be one OpenSSH authorized_keys line, e.g. 'ssh-ed25519 AAAA… you@host'")
	}
	p, err := s.providers().Get(in.Provider)
	if err != nil {
		return nil, invalid("/provider", fmt.Sprintf("unknown provider %q; sandbox.options lists them", in.Provider))
	}
	if u, ok := p.(sandbox.Unavailable); ok {
		return nil, toolErr(CodeUnavailable, "/provider", "provider %s is configured but unavailable: %v", p.Name(), u.Err)
	}
	it, err := sandbox.Lookup(p, in.InstanceType, in.GPU)
	if err != nil {
		return nil, invalid("/instance_type", fmt.Sprintf("provider %s has no instance type %q%s; sandbox.options lists them", p.Name(), in.InstanceType, map[bool]string{true: " with a GPU"}[in.GPU]))
	}
	if in.Region != "" && in.Region != it.Region {
		return nil, invalid("/region", fmt.Sprintf("%s is offered in region %s, not %s", it.Name, it.Region, in.Region))
	}
	cpu, mem, err := shapeOf(in, it)
	if err != nil {
		return nil, err
	}
	limit := wf.SandboxDefaultTimeLimit
	if in.TimeLimit > 0 {
		limit = time.Duration(in.TimeLimit) * time.Second
	}
	if limit > s.sandboxMaxLifetime() {
		return nil, invalid("/time_limit", fmt.Sprintf("time_limit is at most %d seconds here (GATEHOUSE_SANDBOX_MAX_LIFETIME, extends included)",
			int(s.sandboxMaxLifetime().Seconds())))
	}
	s.recoverStranded(ctx, in.ProjectID)
	if !in.Additional {
		active, err := models.ListSandboxes(ctx, s.DB, in.ProjectID, in.ExperimentID, true)
		if err != nil {
			return nil, err
		}
		if len(active) > 0 {
			te := toolErr(CodeConflict, "/additional", "sandbox %s is already active here; use it, release it, or pass additional: true", active[0].UID)
			te.Details = map[string]any{"active_sandbox_uid": active[0].UID}
			return nil, te
		}
	}
	row := models.Sandbox{UID: models.NewID("sbx_"), ProjectID: in.ProjectID, ExperimentID: in.ExperimentID, Provider: p.Name(),
		InstanceType: it.Name, Region: it.Region, CPU: cpu, MemoryMB: mem, GPU: it.GPU, PublicKey: strings.TrimSpace(in.PublicKey),
		KeyFP: ssh.FingerprintSHA256(key), ExpiresAt: s.now().Add(limit), CreatedBy: c.Principal.CredentialID}
	if row.Provider == kube.Name {
		if row.InspectToken, err = kube.NewToken(); err != nil {
			return nil, err
		}
	}
	if err := models.CreateSandboxWithinQuota(ctx, s.DB, row, s.sandboxQuota()); err != nil {
		return nil, err
	}
	// A crash here leaves a provisioning row without a workflow;
	// recoverStranded starts it on the project's next request.
	if err := s.startSandbox(ctx, row, limit); err != nil {
		_ = models.MirrorSandbox(ctx, s.DB, models.SandboxUpdate{UID: row.UID, Status: models.SandboxFailed, ExpiresAt: row.ExpiresAt, Error: err.Error()}, s.now())
		return nil, err
	}
	got := s.awaitSandbox(ctx, row, wf.SandboxProvisionedUpdate, provisionWait, nil, nil)
	out := sandboxView(got)
	out.Requested = true
	return out, nil
}

// shapeOf is the cpu and memory asked for, within instance type it.
func shapeOf(in sandboxArgs, it sandbox.InstanceType) (float64, int, error) {
	cpu, mem := it.CPU, it.MemoryMB
	if in.CPU > 0 {
		if in.CPU > it.CPU {
			return 0, 0, invalid("/cpu", fmt.Sprintf("%s has at most %g cpus", it.Name, it.CPU))
		}
		cpu = in.CPU
	}
	if in.Memory != "" {
		m, ok := parseMemoryMB(in.Memory)
		if !ok || m > it.MemoryMB {
			return 0, 0, invalid("/memory", fmt.Sprintf("memory must look like 512Mi or 4Gi and be at most %d Mi for %s", it.MemoryMB, it.Name))
		}
		mem = m
	}
	return cpu, mem, nil
}

// startSandbox starts row's workflow. Its ID is the row's, so starting it
// twice (a recovery racing the request) starts one workflow: a start that
// finds it running is done.
func (s *Service) startSandbox(ctx context.Context, row models.Sandbox, limit time.Duration) error {
	input := wf.SandboxInput{UID: row.UID, ProjectID: row.ProjectID, Provider: row.Provider, InstanceType: row.InstanceType, Region: row.Region,
		CPU: row.CPU, MemoryMB: row.MemoryMB, GPU: row.GPU, PublicKey: row.PublicKey, TimeLimit: limit, MaxLifetime: s.sandboxMaxLifetime()}
	_, err := s.Temporal.ExecuteWorkflow(ctx, sandboxStartOptions(row.UID, s.Config.TaskQueue), wf.SandboxWorkflowName, input)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil
	}
	return err
}
