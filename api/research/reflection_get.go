package research

import (
	"context"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// docRef describes one artifact for reflection.get: its TLDR always, its
// body only with include_content.
func (s *Service) docRef(ctx context.Context, id string, withContent bool) (map[string]any, error) {
	if id == "" {
		return nil, nil
	}
	a, err := models.ArtifactByID(ctx, s.DB, id)
	if err != nil {
		return nil, err
	}
	v := map[string]any{"artifact_id": a.ID, "role": a.Role, "path": a.Path, "sha256": a.SHA256, "valid": a.Valid}
	if a.LensID != "" {
		v["lens_id"] = a.LensID
	}
	tldr, cached := s.tldrs.get(a.ID, a.SHA256)
	if cached && !withContent {
		v["tldr"] = tldr
		return v, nil
	}
	text, err := s.readArtifact(ctx, a, 64<<10)
	if err != nil {
		return nil, err
	}
	if !cached {
		tldr = rg.TLDR(a.Role, []byte(text))
		if a.UploadedAt != nil {
			s.tldrs.put(a.ID, a.SHA256, tldr)
		}
	}
	v["tldr"] = tldr
	if withContent {
		v["content"] = text
	}
	return v, nil
}

func reflectionGet(ctx context.Context, s *Service, c *Call) (any, error) {
	var in reflectionArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.ReflectionID == "" {
		if _, err := s.project(ctx, c, in.ProjectID); err != nil {
			return nil, err
		}
		r, ok, err := s.latestReflection(ctx, in.ProjectID)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, toolErr(CodeNotFound, "/reflection_id", "project %s has no reflection; open one with reflection.create", in.ProjectID)
		}
		in.ReflectionID = r.ID
	}
	r, err := s.reflectionRow(ctx, c, in.ProjectID, in.ReflectionID)
	if err != nil {
		return nil, err
	}
	return s.reflectionView(ctx, r, in.IncludeContent)
}

// reflectionView is the authoritative wave: workflow state, roster with
// coverage, current-attempt synthesis artifacts, prior published wave and
// the snapshotted corpus.
func (s *Service) reflectionView(ctx context.Context, r models.Reflection, withContent bool) (map[string]any, error) {
	st, err := s.reflectionState(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	d := st.Decision()
	roster := []map[string]any{}
	covered := 0
	for _, l := range st.Lenses {
		entry := map[string]any{"id": l.ID, "title": l.Title, "charter": l.Charter, "why_distinct": l.WhyDistinct, "core": l.Core,
			"path": "reflections/" + r.ID + "/lenses/" + l.ID + ".md", "covered": false}
		if a, ok := st.Artifacts[wf.ArtifactKey(string(rg.EvLensDocs), l.ID)]; ok && a.Attempt == st.Attempt {
			doc, err := s.docRef(ctx, a.ArtifactID, withContent)
			if err != nil {
				return nil, err
			}
			entry["covered"], entry["doc"] = a.Valid, doc
			if a.Valid {
				covered++
			}
		}
		roster = append(roster, entry)
	}
	synthesis := map[string]any{}
	for _, role := range []gates.Evidence{rg.EvProjectGraph, rg.EvReflectionDoc, rg.EvChangeSpec} {
		if a, ok := st.Artifacts[string(role)]; ok && a.Attempt == st.Attempt {
			doc, err := s.docRef(ctx, a.ArtifactID, withContent)
			if err != nil {
				return nil, err
			}
			synthesis[string(role)] = doc
		}
	}
	var prior any
	if pub, err := models.LatestPublishedReflection(ctx, s.DB, r.ProjectID, r.ID); err == nil {
		graph, err := s.docRef(ctx, pub.GraphArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		doc, err := s.docRef(ctx, pub.DocArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		prior = map[string]any{"reflection_id": pub.ID, "published_at": pub.PublishedAt, "project_graph": graph, "reflection_doc": doc}
	}
	corpus := []map[string]any{}
	for _, e := range decodeCorpus(r.CorpusJSON) {
		report, err := s.docRef(ctx, e.ReportArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		graph, err := s.docRef(ctx, e.GraphArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		corpus = append(corpus, map[string]any{"experiment_id": e.ExperimentID, "name": e.Name, "intent": e.Intent, "status": e.Status,
			"conclusion": e.Conclusion, "report": report, "graph": graph, "result_artifact_id": e.ResultArtifactID})
	}
	return map[string]any{
		"reflection": map[string]any{"reflection_id": r.ID, "project_id": r.ProjectID, "title": r.Title, "status": st.Status,
			"attempt_index": st.Attempt, "proposal_revision": st.ProposalRevision, "current_gate": d.Gate, "next_action": d.NextAction,
			"revision_context": st.RevisionContext, "central_advance": st.Advance, "past_advances": pastAdvances(st.Advances), "published": st.Published},
		"roster": roster, "coverage": map[string]any{"covered": covered, "total": len(st.Lenses), "next_lens_id": st.NextLens()},
		"synthesis": synthesis, "prior_published": prior, "corpus": corpus, "content_included": withContent}, nil
}

// pastAdvances lists a wave's settled advances, oldest first ([] if none).
func pastAdvances(as []wf.AdvanceState) []wf.AdvanceState {
	if as == nil {
		return []wf.AdvanceState{}
	}
	return as
}
