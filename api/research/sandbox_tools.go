package research

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/gatehouse/gatehouse/internal/researchclient"
	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/deploy"
	"github.com/gatehouse/gatehouse/internal/temporalerr"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// provisionWait bounds how long sandbox.request waits for the endpoint.
const provisionWait = 30 * time.Second

type sandboxArgs struct {
	ProjectID       string   `json:"project_id"`
	ExperimentID    string   `json:"experiment_id"`
	SandboxUID      string   `json:"sandbox_uid"`
	PublicKey       string   `json:"public_key"`
	Provider        string   `json:"provider"`
	InstanceType    string   `json:"instance_type"`
	Region          string   `json:"region"`
	GPU             bool     `json:"gpu"`
	CPU             float64  `json:"cpu"`
	Memory          string   `json:"memory"`
	TimeLimit       int      `json:"time_limit"`
	Additional      bool     `json:"additional"`
	Seconds         int      `json:"seconds"`
	WaitSeconds     int      `json:"wait_seconds"`
	Tail            int      `json:"tail"`
	Since           string   `json:"since"`
	Paths           []string `json:"paths"`
	ConfirmRetained bool     `json:"confirm_retained"`
}

// sandboxCall decodes the arguments and checks the project (and the
// experiment when one is named).
func (s *Service) sandboxCall(ctx context.Context, c *Call) (sandboxArgs, error) {
	var in sandboxArgs
	if err := c.decode(&in); err != nil {
		return in, err
	}
	if in.ExperimentID != "" {
		_, _, err := s.experiment(ctx, c, in.ProjectID, in.ExperimentID)
		return in, err
	}
	_, err := s.project(ctx, c, in.ProjectID)
	return in, err
}

// sandboxProviders builds a configuration's provider set, shared with the
// worker of the same process; tests swap it for fakes.
var sandboxProviders = deploy.Shared

// providers is this deployment's sandbox provider set. Providers that
// could not be built are present as sandbox.Unavailable (the worker logs
// why at start; sandbox.health and sandbox.request say it).
func (s *Service) providers() sandbox.Providers {
	ps, _ := sandboxProviders(s.Config)
	return ps
}

func sandboxOptions(ctx context.Context, s *Service, c *Call) (any, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return nil, err
	}
	ps := s.providers()
	if in.Provider != "" {
		if _, err := ps.Get(in.Provider); err != nil {
			return nil, invalid("/provider", fmt.Sprintf("unknown provider %q; this deployment offers %s", in.Provider, strings.Join(providerNames(ps), ", ")))
		}
	}
	out := []sandbox.InstanceType{}
	for _, p := range ps.All() {
		if in.Provider != "" && p.Name() != in.Provider {
			continue
		}
		for _, it := range p.Options() {
			if in.GPU && it.GPU == 0 || in.Region != "" && it.Region != in.Region {
				continue
			}
			out = append(out, it)
		}
	}
	return sandboxOptionsResp{DefaultProvider: ps.Default(), Providers: providerNames(ps), InstanceTypes: out, Count: len(out),
		Limits: s.sandboxLimits()}, nil
}

// awaitSandbox runs the sandbox workflow's Update (SandboxReleaseUpdate
// or SandboxProvisionedUpdate, which answer once the workflow recorded the
// outcome in the row) for at most wait, and answers the row as it then is
// (sb if it cannot be read). A worker of a release without the Update (a
// rolling deploy) is sent legacy instead, when there is one.
func (s *Service) awaitSandbox(ctx context.Context, sb models.Sandbox, update string, wait time.Duration, args []any, legacy func() error) models.Sandbox {
	uctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	h, err := s.Temporal.UpdateWorkflow(uctx, client.UpdateWorkflowOptions{WorkflowID: wf.SandboxWorkflowID(sb.UID), UpdateName: update,
		UpdateID: update, Args: args, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		err = h.Get(uctx, nil)
	}
	if err != nil && legacy != nil && strings.Contains(err.Error(), "unknown update") {
		err = legacy()
	}
	if err != nil && s.Log != nil {
		s.Log.WarnContext(ctx, "sandbox: the workflow did not answer", "sandbox", sb.UID, "update", update, "err", err)
	}
	got, gerr := models.GetSandbox(ctx, s.DB, sb.ProjectID, sb.UID)
	if gerr != nil {
		return sb
	}
	return got
}

// parseMemoryMB reads 512Mi, 4Gi, 4G, 512M or a plain number of MiB.
func parseMemoryMB(v string) (int, bool) {
	mult := 1
	switch {
	case strings.HasSuffix(v, "Gi"), strings.HasSuffix(v, "G"):
		mult, v = 1024, strings.TrimRight(v, "Gi")
	case strings.HasSuffix(v, "Mi"), strings.HasSuffix(v, "M"):
		v = strings.TrimRight(v, "Mi")
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 || n > 1<<30 {
		return 0, false
	}
	return int(n * float64(mult)), true
}

// sandboxView is a sandbox as tools show it.
func sandboxView(sb models.Sandbox) sandboxViewResp {
	v := sandboxViewResp{SandboxUID: sb.UID, SandboxID: sb.UID, ProjectID: sb.ProjectID, ExperimentID: sb.ExperimentID,
		Status: sb.Status, Active: sb.Active(), Provider: sb.Provider, InstanceType: sb.InstanceType, Region: sb.Region,
		CPU: sb.CPU, MemoryMB: sb.MemoryMB, GPU: sb.GPU, KeyFingerprint: sb.KeyFP, ExpiresAt: sb.ExpiresAt,
		CreatedAt: sb.CreatedAt, EndedAt: sb.EndedAt, WorkflowID: wf.SandboxWorkflowID(sb.UID), LastError: sb.LastError}
	if sb.SSHPort > 0 {
		v.SSHHost, v.SSHPort, v.SSHUser, v.Workdir = &sb.SSHHost, &sb.SSHPort, &sb.SSHUser, &sb.Workdir
		if sb.Active() {
			v.SSHCommand = fmt.Sprintf("ssh -p %d %s@%s", sb.SSHPort, sb.SSHUser, sb.SSHHost)
		}
	}
	return v
}

// pickSandbox finds the sandbox a call means: sandbox_uid, else the newest
// active one of experiment_id, else the newest active one of the project.
func (s *Service) pickSandbox(ctx context.Context, in sandboxArgs) (models.Sandbox, error) {
	if in.SandboxUID != "" {
		sb, err := models.GetSandbox(ctx, s.DB, in.ProjectID, in.SandboxUID)
		if err == nil && in.ExperimentID != "" && sb.ExperimentID != in.ExperimentID {
			return sb, toolErr(CodeConflict, "/sandbox_uid", "sandbox %s is not attached to experiment %s; sandbox.attach it first", sb.UID, in.ExperimentID)
		}
		return sb, err
	}
	active, err := models.ListSandboxes(ctx, s.DB, in.ProjectID, in.ExperimentID, true)
	if err != nil {
		return models.Sandbox{}, err
	}
	if len(active) == 0 {
		return models.Sandbox{}, toolErr(CodeNotFound, "/sandbox_uid", "no active sandbox here; pass sandbox_uid or sandbox.request one")
	}
	return active[0], nil
}

func sandboxGet(ctx context.Context, s *Service, c *Call) (any, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return nil, err
	}
	sb, err := s.pickSandbox(ctx, in)
	if err != nil {
		return nil, err
	}
	return sandboxOneResp{Sandbox: sandboxView(sb)}, nil
}

func sandboxList(ctx context.Context, s *Service, c *Call) (any, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return nil, err
	}
	rows, err := models.ListSandboxes(ctx, s.DB, in.ProjectID, in.ExperimentID, false)
	if err != nil {
		return nil, err
	}
	out := make([]sandboxViewResp, 0, len(rows))
	for _, sb := range rows {
		out = append(out, sandboxView(sb))
	}
	return sandboxListResp{Sandboxes: out, Count: len(out)}, nil
}

func sandboxAttach(ctx context.Context, s *Service, c *Call) (any, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return nil, err
	}
	sb, err := models.GetSandbox(ctx, s.DB, in.ProjectID, in.SandboxUID)
	if err != nil {
		return nil, err
	}
	if !sb.Active() {
		return nil, toolErr(CodeConflict, "/sandbox_uid", "sandbox %s is %s; only an active sandbox can be attached", sb.UID, sb.Status)
	}
	if err := models.AttachSandbox(ctx, s.DB, in.ProjectID, sb.UID, in.ExperimentID); err != nil {
		return nil, err
	}
	// The experiments' gates follow (execution_active). The row is the
	// authority for status_and_next, so a failed signal is logged, not
	// answered: the sandbox's next recorded change repeats it.
	running := sb.Status == models.SandboxRunning
	if sb.ExperimentID != in.ExperimentID {
		if err := researchclient.NotifySandboxActivity(ctx, s.Temporal, sb.ExperimentID, sb.UID, false); err != nil {
			s.Log.Warn("sandbox detach not signalled", "sandbox_uid", sb.UID, "experiment_id", sb.ExperimentID, "err", err)
		}
	}
	if err := researchclient.NotifySandboxActivity(ctx, s.Temporal, in.ExperimentID, sb.UID, running); err != nil {
		s.Log.Warn("sandbox attach not signalled", "sandbox_uid", sb.UID, "experiment_id", in.ExperimentID, "err", err)
	}
	sb.ExperimentID = in.ExperimentID
	return sandboxAttachResp{Attached: true, Sandbox: sandboxView(sb)}, nil
}

func sandboxExtend(ctx context.Context, s *Service, c *Call) (any, error) {
	in, err := s.sandboxCall(ctx, c)
	if err != nil {
		return nil, err
	}
	sb, err := s.pickSandbox(ctx, in)
	if err != nil {
		return nil, err
	}
	if !sb.Active() {
		return nil, toolErr(CodeConflict, "/sandbox_uid", "sandbox %s is %s; it cannot be extended", sb.UID, sb.Status)
	}
	before, err := s.sandboxState(ctx, sb.UID)
	if err != nil {
		return nil, err
	}
	ext := wf.SandboxExtend{Seconds: int(wf.ExtendBy(in.Seconds).Seconds())}
	after, err := s.extendSandbox(ctx, sb.UID, before, ext)
	if err != nil {
		return nil, err
	}
	return sandboxExtendResp{SandboxUID: sb.UID, Extended: after.Revision > before.Revision,
		AddedSeconds: ext.Seconds, ExpiresAt: after.ExpiresAt, Status: after.Status}, nil
}

// sandboxExtendWait bounds how long sandbox.extend retries its Update
// through transient Temporal failures; the handler answers at once.
// Tests shorten it.
var sandboxExtendWait = 10 * time.Second

// extendUpdateID is the Update ID of one sandbox.extend. The tool takes
// no idempotency key, so the key is the sandbox, the state revision read
// before the call and the seconds asked: the attempts of one call (retried
// through a transient failure) share it and Temporal applies the first
// only, while a later call reads a newer revision and extends again, as
// the tool promises (each call adds time). Two calls that read the same
// revision and ask the same seconds are taken as one.
func extendUpdateID(uid string, revision, seconds int) string {
	return fmt.Sprintf("%s/%s/r%d/%d", wf.SandboxExtendUpdate, uid, revision, seconds)
}

// extendSandbox sends SandboxExtendUpdate and answers the state the
// workflow returned with the extension applied, retrying transient
// failures under the same Update ID for sandboxExtendWait. A worker of a
// release without the Update (a rolling deploy) is sent the signal and
// answered from one state query instead.
func (s *Service) extendSandbox(ctx context.Context, uid string, before wf.SandboxState, ext wf.SandboxExtend) (wf.SandboxState, error) {
	opts := client.UpdateWorkflowOptions{WorkflowID: wf.SandboxWorkflowID(uid), UpdateID: extendUpdateID(uid, before.Revision, ext.Seconds),
		UpdateName: wf.SandboxExtendUpdate, Args: []any{ext}, WaitForStage: client.WorkflowUpdateStageCompleted}
	var after wf.SandboxState
	err := temporalerr.Retry(ctx, temporalerr.Backoff{Budget: sandboxExtendWait, First: 100 * time.Millisecond, Max: 2 * time.Second},
		func(uctx context.Context) error {
			h, err := s.Temporal.UpdateWorkflow(uctx, opts)
			if err == nil {
				err = h.Get(uctx, &after)
			}
			return err
		})
	if err != nil && strings.Contains(err.Error(), "unknown update") {
		if err = s.Temporal.SignalWorkflow(ctx, wf.SandboxWorkflowID(uid), "", wf.SandboxExtendSignal, ext); err == nil {
			return s.sandboxState(ctx, uid)
		}
	}
	if err != nil {
		return after, extendError(ctx, uid, err)
	}
	return after, nil
}

// extendError maps a failed extend: the validator's refusals to tool
// errors at the field they are about, a sandbox whose workflow is gone to
// a conflict, and Temporal out of reach to a retryable unavailable.
func extendError(ctx context.Context, uid string, err error) error {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case wf.ErrTypeSandboxEnded:
			return &ToolError{Code: CodeConflict, Pointer: "/sandbox_uid", Message: ae.Message()}
		case wf.ErrTypeInvalidInput:
			return invalid("/seconds", ae.Message())
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if temporalerr.Transient(err) {
		return &ToolError{Code: CodeUnavailable, Pointer: "/sandbox_uid", Message: "Temporal did not take the extension (unreachable); retry",
			Details: map[string]any{"retryable": true}}
	}
	return toolErr(CodeConflict, "/sandbox_uid", "sandbox %s no longer accepts extensions (it may have ended): %v", uid, err)
}

// sandboxState queries the sandbox workflow, the authority for expiry,
// retried through transient failures (queryState).
func (s *Service) sandboxState(ctx context.Context, uid string) (wf.SandboxState, error) {
	var st wf.SandboxState
	return st, s.queryState(ctx, wf.SandboxWorkflowID(uid), wf.SandboxStateQuery, &st)
}

func sandboxHealth(ctx context.Context, s *Service, c *Call) (any, error) {
	var in struct {
		Provider string `json:"provider"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	var out []sandboxHealthRow
	for _, p := range s.providers().All() {
		name := p.Name()
		if in.Provider != "" && in.Provider != name {
			continue
		}
		row := sandboxHealthRow{Provider: name, Healthy: true}
		if err := p.Health(ctx); err != nil {
			row.Healthy, row.Error = false, ptr(err.Error())
		}
		out = append(out, row)
	}
	if len(out) == 0 {
		return nil, invalid("/provider", "unknown provider "+in.Provider)
	}
	return sandboxHealthResp{Providers: out}, nil
}

// providerNames lists the names of ps in configured order.
func providerNames(ps sandbox.Providers) []string {
	var names []string
	for _, p := range ps.All() {
		names = append(names, p.Name())
	}
	return names
}

// errSandboxInspect means the provider cannot show runs or files.
var errSandboxInspect = errors.New("sandbox: provider cannot inspect runs or files")
