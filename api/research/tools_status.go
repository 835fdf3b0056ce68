package research

import (
	"context"
	"slices"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

func init() {
	registerFamily("workflow",
		Tool{Name: "workflow.status_and_next", Handler: statusAndNext, ReadOnly: true,
			Description: "The canonical entrypoint: the current gate, the next action and what is allowed, for the project or one experiment.",
			Schema:      object([]string{"project_id"}, props{"project_id": projectID, "experiment_id": experimentID})},
	)
}

func statusAndNext(ctx context.Context, s *Service, c *Call) (any, error) {
	var in experimentArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.ExperimentID == "" {
		p, err := s.project(ctx, c, in.ProjectID)
		if err != nil {
			return nil, err
		}
		return s.projectStatus(ctx, c, p)
	}
	p, e, err := s.experiment(ctx, c, in.ProjectID, in.ExperimentID)
	if err != nil {
		return nil, err
	}
	st, err := s.state(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	// The gate is the workflow's own decision on its state; whether a
	// sandbox runs comes from the sandbox mirror, its authority, which a
	// signal to the workflow may not have reached yet (execution_active).
	sbx := s.sandboxBlock(ctx, e.ID)
	if sbx.sandboxEndpointResp != nil && sbx.Status == models.SandboxRunning && !slices.Contains(st.SandboxesRunning, sbx.SandboxUID) {
		st.SandboxesRunning = append(st.SandboxesRunning, sbx.SandboxUID)
	}
	d := st.Decision()
	workflow := experimentWorkflowResp{CurrentGate: d.Gate, NextAction: d.NextAction, AllowedActions: s.allowedActions(c.Principal, d.AllowedTools, d.Transitions),
		AllowedTransitions: d.Transitions, BlockedActions: d.BlockedActions, MissingEvidence: d.MissingEvidence,
		RevisionContext: st.RevisionContext, Status: st.Status, AttemptIndex: st.Attempt}
	if d.ReviewEvidence != "" {
		kind := wf.ReviewKindOf(st.Status)
		workflow.ReviewGate = reviewGateOf(p, kind, targetExperiment, e.ID, st.Reviews[kind], st.SnapshotToken())
	}
	if d.ArtifactRole != "" {
		t := gates.Templates[d.ArtifactRole]
		workflow.ArtifactGuidance = &experimentGuidanceResp{TargetType: targetExperiment, Role: t.Role,
			Path: "experiments/" + e.Name + "/" + t.Path, Template: t.Text, Guidance: gates.GuidanceOf(d.ArtifactRole),
			Checks: gates.Checks(d.ArtifactRole), RequiredSections: t.Sections, MaxBytes: gates.MaxGatedArtifactBytes}
	}
	live, err := s.liveExperiments(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	workflow.LiveExperiments = live
	as, err := models.AttemptArtifacts(ctx, s.DB, targetExperiment, e.ID, st.Attempt)
	if err != nil {
		return nil, err
	}
	refs := make([]artifactViewResp, 0, len(as))
	latest := map[string]models.Artifact{}
	for _, a := range as {
		refs = append(refs, artifactView(a))
		latest[a.Role] = a
	}
	code, recorded, err := models.ExperimentCodeOf(ctx, s.DB, e.ID)
	if err != nil {
		return nil, err
	}
	// The attempt's newest plan and report, with their text (null if none).
	content := func(role string) (*artifactContentResp, error) {
		a, ok := latest[role]
		if !ok {
			return nil, nil
		}
		text, err := s.readArtifact(ctx, a, gates.MaxGatedArtifactBytes)
		if err != nil {
			return nil, err
		}
		return &artifactContentResp{ArtifactID: a.ID, Content: text}, nil
	}
	ctxBlock := experimentContextResp{Experiment: experimentSummary(e), Artifacts: refs, Code: codeView(code, recorded)}
	if ctxBlock.Plan, err = content("plan"); err != nil {
		return nil, err
	}
	if ctxBlock.Report, err = content("report"); err != nil {
		return nil, err
	}
	return experimentStatusResp{Scope: "experiment", Project: experimentProjectResp{ID: p.ID, Name: p.Name}, Workflow: workflow,
		Context: ctxBlock, Sandbox: sbx}, nil
}

// reviewGateOf is the review_gate block of a status envelope: who reviews
// kind of the target and how far its review got, with the expiry hints
// (noteExpired).
func reviewGateOf(p models.Project, kind, targetType, targetID string, r wf.ReviewState, snapshot string) *reviewGateResp {
	status := reviewGateStatus(r, snapshot)
	g := &reviewGateResp{Role: reviewRoleOf(p, kind), Skill: kind + "-review", TargetType: targetType, TargetID: targetID,
		Status: status, Label: kind + " review", ReadOnly: true}
	if r.RequestID != "" && status != "none" {
		expires := r.ExpiresAt
		g.RequestID, g.ExpiresAt = r.RequestID, &expires
	}
	noteExpired(g, r)
	return g
}

func (s *Service) liveExperiments(ctx context.Context, projectID string) ([]experimentSummaryResp, error) {
	exps, err := models.OpenExperiments(ctx, s.DB, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]experimentSummaryResp, 0, len(exps))
	for _, e := range exps {
		out = append(out, experimentSummary(e))
	}
	return out, nil
}

// projectStatus is the project-scope envelope: project gates are
// project_setup, live_experiments, reflection_required and
// reflection_suggested, as the reference names them.
func (s *Service) projectStatus(ctx context.Context, c *Call, p models.Project) (any, error) {
	if out, ok, err := s.reflectionStatus(ctx, c, p); ok || err != nil {
		return out, err
	}
	pctx, err := s.projectContext(ctx, p)
	if err != nil {
		return nil, err
	}
	live, err := s.liveExperiments(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	finished, err := s.finishedSinceReflection(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	gate, next := "project_setup", "create_claim_or_experiment"
	allowed := []string{"claim.create", "experiment.create", "workflow.status_and_next"}
	blocked := []gateengine.Blocked{}
	switch {
	case finished >= finishedBeforeReflection:
		// The reference's words: no wave exists yet, so the action is to
		// start one, not to fan out its (non-existent) lens subagents.
		gate, next, allowed = "reflection_required", "start_project_reflection_before_next_experiment", []string{"reflection.create", "claim.create", "workflow.status_and_next"}
		blocked = []gateengine.Blocked{{Action: "experiment.create", Reason: ReasonReflectionRequired}}
	case len(live) > 0:
		// The reference's word: tend the live experiments (each one's
		// status_and_next names its own next action).
		gate, next = "live_experiments", "tend_live_work"
	case finished >= finishedSuggestReflection:
		// Nothing runs and finished work waits to be reflected on: the
		// natural moment for a wave, though more experiments may start.
		gate, next = "reflection_suggested", "consider_project_reflection"
		allowed = []string{"reflection.create", "claim.create", "experiment.create", "workflow.status_and_next"}
	}
	// experiment.create refuses a project at its limit of open experiments
	// (checkLimits), so it is blocked, not allowed, while the limit holds.
	if len(live) >= maxOpenExperiments {
		if i := slices.Index(allowed, "experiment.create"); i >= 0 {
			allowed = slices.Delete(allowed, i, i+1)
			blocked = append(blocked, gateengine.Blocked{Action: "experiment.create", Reason: ReasonProjectLimit})
		}
	}
	return projectStatusResp{Scope: "project",
		Workflow: projectWorkflowResp{CurrentGate: gate, NextAction: next, AllowedActions: s.allowedActions(c.Principal, allowed, nil), BlockedActions: blocked,
			MissingEvidence: []string{}, LiveExperiments: live},
		Context: pctx}, nil
}

// projectContext is the project-scope status's context: the project, its
// newest published reflection, a literature summary, its claims and
// experiment summaries. It is the same whether or not a wave is open.
func (s *Service) projectContext(ctx context.Context, p models.Project) (*projectContextResp, error) {
	ov, err := s.overview(ctx, p)
	if err != nil {
		return nil, err
	}
	latest, err := s.latestPublishedReflection(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	lit, err := s.literatureSummary(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	return &projectContextResp{Project: p, LatestReflection: latest, LiteratureSummary: lit,
		Claims: ov.Claims, Experiments: ov.Experiments}, nil
}
