package research

import (
	"context"
	"slices"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
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
	workflow := map[string]any{"current_gate": d.Gate, "next_action": d.NextAction, "allowed_actions": s.allowedActions(c.Principal, d.AllowedTools, d.Transitions),
		"allowed_transitions": d.Transitions, "blocked_actions": d.BlockedActions, "missing_evidence": d.MissingEvidence,
		"revision_context": st.RevisionContext, "status": st.Status, "attempt_index": st.Attempt}
	if d.ReviewEvidence != "" {
		kind := wf.ReviewKindOf(st.Status)
		r := st.Reviews[kind]
		status := reviewGateStatus(r, st.SnapshotToken())
		g := map[string]any{"role": reviewRoleOf(p, kind), "skill": kind + "-review", "target_type": targetExperiment, "target_id": e.ID,
			"status": status, "label": kind + " review", "read_only": true}
		if r.RequestID != "" && status != "none" {
			g["request_id"], g["expires_at"] = r.RequestID, r.ExpiresAt
		}
		noteExpired(g, r)
		workflow["review_gate"] = g
	}
	if d.ArtifactRole != "" {
		t := gates.Templates[d.ArtifactRole]
		workflow["artifact_guidance"] = map[string]any{"target_type": targetExperiment, "role": t.Role,
			"path": "experiments/" + e.Name + "/" + t.Path, "template": t.Text, "guidance": gates.GuidanceOf(d.ArtifactRole),
			"checks": gates.Checks(d.ArtifactRole), "required_sections": t.Sections, "max_bytes": gates.MaxGatedArtifactBytes}
	}
	live, err := s.liveExperiments(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	workflow["live_experiments"] = live
	as, err := models.AttemptArtifacts(ctx, s.DB, targetExperiment, e.ID, st.Attempt)
	if err != nil {
		return nil, err
	}
	refs := make([]map[string]any, 0, len(as))
	latest := map[string]models.Artifact{}
	for _, a := range as {
		refs = append(refs, artifactView(a))
		latest[a.Role] = a
	}
	code, recorded, err := models.ExperimentCodeOf(ctx, s.DB, e.ID)
	if err != nil {
		return nil, err
	}
	ctxBlock := map[string]any{"experiment": experimentSummary(e), "artifacts": refs, "plan": nil, "report": nil,
		"code": codeView(code, recorded)}
	for _, role := range []string{"plan", "report"} {
		if a, ok := latest[role]; ok {
			text, err := s.readArtifact(ctx, a, gates.MaxGatedArtifactBytes)
			if err != nil {
				return nil, err
			}
			ctxBlock[role] = map[string]any{"artifact_id": a.ID, "content": text}
		}
	}
	return map[string]any{"scope": "experiment", "project": map[string]any{"id": p.ID, "name": p.Name}, "workflow": workflow,
		"context": ctxBlock, "sandbox": sbx}, nil
}

func (s *Service) liveExperiments(ctx context.Context, projectID string) ([]map[string]any, error) {
	exps, err := models.OpenExperiments(ctx, s.DB, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(exps))
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
	blocked := []any{}
	switch {
	case finished >= finishedBeforeReflection:
		// The reference's words: no wave exists yet, so the action is to
		// start one, not to fan out its (non-existent) lens subagents.
		gate, next, allowed = "reflection_required", "start_project_reflection_before_next_experiment", []string{"reflection.create", "claim.create", "workflow.status_and_next"}
		blocked = []any{map[string]any{"action": "experiment.create", "reason": "reflection_required"}}
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
	return map[string]any{"scope": "project", "experiment": nil,
		"workflow": map[string]any{"current_gate": gate, "next_action": next, "allowed_actions": s.allowedActions(c.Principal, allowed, nil), "blocked_actions": blocked,
			"missing_evidence": []any{}, "revision_context": nil, "live_experiments": live},
		"context": pctx}, nil
}

// projectContext is the project-scope status's context: the project, its
// newest published reflection, a literature summary, its claims and
// experiment summaries. It is the same whether or not a wave is open.
func (s *Service) projectContext(ctx context.Context, p models.Project) (map[string]any, error) {
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
	return map[string]any{"project": p, "latest_reflection": latest, "literature_summary": lit,
		"claims": ov["claims"].([]models.Claim), "experiments": ov["experiments"].([]map[string]any)}, nil
}
