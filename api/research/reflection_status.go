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
	workflow := reflectionWorkflowResp{CurrentGate: d.Gate, NextAction: d.NextAction, AllowedActions: s.allowedActions(c.Principal, d.AllowedTools, d.Transitions),
		AllowedTransitions: d.Transitions, BlockedActions: d.BlockedActions, MissingEvidence: d.MissingEvidence,
		RevisionContext: st.RevisionContext, Status: st.Status, AttemptIndex: st.Attempt, ProposalRevision: st.ProposalRevision,
		ReflectionID: r.ID, CentralAdvance: st.Advance}
	if kind := st.ReviewKind(); d.ReviewEvidence != "" && kind != "" {
		workflow.ReviewGate = reviewGateOf(p, kind, targetReflection, r.ID, st.Reviews[kind], st.SnapshotToken())
	}
	if d.ArtifactRole != "" {
		t := rg.Templates[d.ArtifactRole]
		g := &reflectionGuidanceResp{TargetType: targetReflection, TargetID: r.ID, Role: t.Role, Template: t.Text,
			Guidance: rg.GuidanceOf(d.ArtifactRole), Checks: rg.Checks(d.ArtifactRole), Path: "reflections/" + r.ID + "/" + t.Path}
		if d.ArtifactRole == string(rg.EvLensDocs) {
			lens := st.NextLens()
			g.LensID, g.Path = &lens, "reflections/"+r.ID+"/lenses/"+lens+".md"
			for _, l := range st.Lenses {
				if l.ID == lens {
					g.Lens = &l
				}
			}
		}
		workflow.ArtifactGuidance = g
	}
	live, err := s.liveExperiments(ctx, p.ID)
	if err != nil {
		return nil, true, err
	}
	workflow.LiveExperiments = live
	// The wave adds to the project context, it does not replace it: the
	// claims, experiments and literature stay in view.
	pctx, err := s.projectContext(ctx, p)
	if err != nil {
		return nil, true, err
	}
	summary := reflectionSummary(r)
	return projectStatusResp{Scope: "project", Reflection: &summary, Workflow: workflow, Context: pctx}, true, nil
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
	return reflectionPublishedResp{ReflectionID: r.ID, Title: r.Title, PublishedAt: r.PublishedAt, ProjectGraph: graph, ReflectionDoc: doc}, nil
}
