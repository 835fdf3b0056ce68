package research

import (
	"context"
	"errors"

	models "github.com/gatehouse/gatehouse/models/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// reflectionStatus is the project-scope envelope while a wave is open:
// the wave's gate, next action, review gate and artifact guidance (the
// next lens_id for a lens doc). ok is false when no wave is open.
func (s *Service) reflectionStatus(ctx context.Context, c *Call, p models.Project) (any, bool, error) {
	r, err := models.OpenReflection(ctx, s.DB, p.ID)
	if err != nil {
		return nil, false, nil
	}
	st, err := s.reflectionState(ctx, r.ID)
	if err != nil {
		return nil, true, err
	}
	if st.Status.Terminal() { // the workflow is the authority; the row's open slot is freed by its mirror
		return nil, false, nil
	}
	d := st.Decision()
	workflow := map[string]any{"current_gate": d.Gate, "next_action": d.NextAction, "allowed_actions": s.allowedActions(c.Principal, d.AllowedTools, d.Transitions),
		"allowed_transitions": d.Transitions, "blocked_actions": d.BlockedActions, "missing_evidence": d.MissingEvidence,
		"revision_context": st.RevisionContext, "status": st.Status, "attempt_index": st.Attempt, "proposal_revision": st.ProposalRevision,
		"reflection_id": r.ID}
	if kind := st.ReviewKind(); d.ReviewEvidence != "" && kind != "" {
		rv := st.Reviews[kind]
		status := reviewGateStatus(rv, st.SnapshotToken())
		g := map[string]any{"role": reviewRoleOf(p, kind), "skill": kind + "-review", "target_type": targetReflection, "target_id": r.ID,
			"status": status, "label": kind + " review", "read_only": true}
		if rv.RequestID != "" && status != "none" {
			g["request_id"], g["expires_at"] = rv.RequestID, rv.ExpiresAt
		}
		noteExpired(g, rv)
		workflow["review_gate"] = g
	}
	if d.ArtifactRole != "" {
		t := rg.Templates[d.ArtifactRole]
		g := map[string]any{"target_type": targetReflection, "target_id": r.ID, "role": t.Role, "template": t.Text,
			"guidance": rg.GuidanceOf(d.ArtifactRole), "checks": rg.Checks(d.ArtifactRole), "path": "reflections/" + r.ID + "/" + t.Path}
		if d.ArtifactRole == string(rg.EvLensDocs) {
			lens := st.NextLens()
			g["lens_id"], g["path"] = lens, "reflections/"+r.ID+"/lenses/"+lens+".md"
			for _, l := range st.Lenses {
				if l.ID == lens {
					g["lens"] = l
				}
			}
		}
		workflow["artifact_guidance"] = g
	}
	if st.Advance != nil {
		workflow["central_advance"] = st.Advance
	}
	live, err := s.liveExperiments(ctx, p.ID)
	if err != nil {
		return nil, true, err
	}
	workflow["live_experiments"] = live
	// The wave adds to the project context, it does not replace it: the
	// claims, experiments and literature stay in view.
	pctx, err := s.projectContext(ctx, p)
	if err != nil {
		return nil, true, err
	}
	return map[string]any{"scope": "project", "experiment": nil, "reflection": reflectionSummary(r), "workflow": workflow,
		"context": pctx}, true, nil
}

// latestPublishedReflection summarizes the project's newest published
// wave with its pinned graph and doc (nil if none).
func (s *Service) latestPublishedReflection(ctx context.Context, projectID string) (any, error) {
	r, err := models.LatestPublishedReflection(ctx, s.DB, projectID, "")
	if errors.Is(err, models.ErrNoRecord) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	graph, err := s.docRef(ctx, r.GraphArtifactID, false)
	if err != nil {
		return nil, err
	}
	doc, err := s.docRef(ctx, r.DocArtifactID, false)
	if err != nil {
		return nil, err
	}
	return map[string]any{"reflection_id": r.ID, "title": r.Title, "published_at": r.PublishedAt, "project_graph": graph, "reflection_doc": doc}, nil
}
