package research

import (
	"context"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// docRef describes one artifact for reflection.get: its TLDR always, its
// body only with include_content.
func (s *Service) docRef(ctx context.Context, id string, withContent bool) (*docRefResp, error) {
	if id == "" {
		return nil, nil
	}
	a, err := models.ArtifactByID(ctx, s.DB, id)
	if err != nil {
		return nil, err
	}
	v := &docRefResp{ArtifactID: a.ID, Role: a.Role, Path: a.Path, SHA256: a.SHA256, Valid: a.Valid, LensID: a.LensID}
	tldr, cached := s.tldrs.get(a.ID, a.SHA256)
	if cached && !withContent {
		v.TLDR = tldr
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
	v.TLDR = tldr
	if withContent {
		v.Content = &text
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
	view, err := s.reflectionView(ctx, r, in.IncludeContent)
	if err != nil {
		return nil, err
	}
	return view, nil
}

// reflectionView is the authoritative wave: workflow state, roster with
// coverage, current-attempt synthesis artifacts, prior published wave and
// the snapshotted corpus.
func (s *Service) reflectionView(ctx context.Context, r models.Reflection, withContent bool) (*reflectionViewResp, error) {
	st, err := s.reflectionState(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	d := st.Decision()
	roster := []reflectionLensResp{}
	covered := 0
	for _, l := range st.Lenses {
		entry := reflectionLensResp{ID: l.ID, Title: l.Title, Charter: l.Charter, WhyDistinct: l.WhyDistinct, Core: l.Core,
			Path: "reflections/" + r.ID + "/lenses/" + l.ID + ".md", Covered: false}
		if a, ok := st.Artifacts[wf.ArtifactKey(string(rg.EvLensDocs), l.ID)]; ok && a.Attempt == st.Attempt {
			doc, err := s.docRef(ctx, a.ArtifactID, withContent)
			if err != nil {
				return nil, err
			}
			entry.Covered, entry.Doc = a.Valid, doc
			if a.Valid {
				covered++
			}
		}
		roster = append(roster, entry)
	}
	synthesis := map[string]*docRefResp{}
	for _, role := range []gateengine.Evidence{rg.EvProjectGraph, rg.EvReflectionDoc, rg.EvChangeSpec} {
		if a, ok := st.Artifacts[string(role)]; ok && a.Attempt == st.Attempt {
			doc, err := s.docRef(ctx, a.ArtifactID, withContent)
			if err != nil {
				return nil, err
			}
			synthesis[string(role)] = doc
		}
	}
	var prior *reflectionPriorResp
	if pub, err := models.LatestPublishedReflection(ctx, s.DB, r.ProjectID, r.ID); err == nil {
		graph, err := s.docRef(ctx, pub.GraphArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		doc, err := s.docRef(ctx, pub.DocArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		prior = &reflectionPriorResp{ReflectionID: pub.ID, PublishedAt: pub.PublishedAt, ProjectGraph: graph, ReflectionDoc: doc}
	}
	corpus := []reflectionCorpusResp{}
	for _, e := range decodeCorpus(r.CorpusJSON) {
		report, err := s.docRef(ctx, e.ReportArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		graph, err := s.docRef(ctx, e.GraphArtifactID, withContent)
		if err != nil {
			return nil, err
		}
		corpus = append(corpus, reflectionCorpusResp{ExperimentID: e.ExperimentID, Name: e.Name, Intent: e.Intent, Status: e.Status,
			Conclusion: e.Conclusion, Report: report, Graph: graph, ResultArtifactID: e.ResultArtifactID})
	}
	return &reflectionViewResp{
		Reflection: reflectionHeadResp{ReflectionID: r.ID, ProjectID: r.ProjectID, Title: r.Title, Status: st.Status,
			AttemptIndex: st.Attempt, ProposalRevision: st.ProposalRevision, CurrentGate: d.Gate, NextAction: d.NextAction,
			RevisionContext: st.RevisionContext, CentralAdvance: st.Advance, PastAdvances: pastAdvances(st.Advances), Published: st.Published},
		Roster: roster, Coverage: reflectionCoverageResp{Covered: covered, Total: len(st.Lenses), NextLensID: st.NextLens()},
		Synthesis: synthesis, PriorPublished: prior, Corpus: corpus, ContentIncluded: withContent}, nil
}

// pastAdvances lists a wave's settled advances, oldest first ([] if none).
func pastAdvances(as []wf.AdvanceState) []wf.AdvanceState {
	if as == nil {
		return []wf.AdvanceState{}
	}
	return as
}
