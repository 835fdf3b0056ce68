package research

import (
	"context"
	"encoding/json"
	"maps"
	"strconv"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// proposalDecision is one corpus experiment's fate in a proposal.
type proposalDecision struct {
	ExperimentID    string `json:"experiment_id"`
	Disposition     string `json:"disposition"`
	IntegrationKind string `json:"integration_kind"`
	SourceSHA       string `json:"source_sha,omitempty"`
	SupersededBy    string `json:"superseded_by,omitempty"`
	Notes           string `json:"notes,omitempty"`
}

type consolidationArgs struct {
	ProjectID    string             `json:"project_id"`
	ReflectionID string             `json:"reflection_id"`
	BaseSHA      string             `json:"base_sha"`
	ProposalSHA  string             `json:"proposal_sha"`
	Summary      string             `json:"summary"`
	Validation   map[string]any     `json:"validation"`
	Decisions    []proposalDecision `json:"decisions"`
}

func consolidationGet(ctx context.Context, s *Service, c *Call) (any, error) {
	var in consolidationArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	r, err := s.reflectionRow(ctx, c, in.ProjectID, in.ReflectionID)
	if err != nil {
		return nil, err
	}
	view, err := s.reflectionView(ctx, r, false)
	if err != nil {
		return nil, err
	}
	props, err := models.ProposalsOf(ctx, s.DB, r.ID)
	if err != nil {
		return nil, err
	}
	latest := map[string]proposalDecision{}
	proposals := make([]map[string]any, 0, len(props))
	for _, p := range props {
		var ds []proposalDecision
		_ = json.Unmarshal([]byte(p.DecisionsJSON), &ds)
		latest = map[string]proposalDecision{}
		for _, d := range ds {
			latest[d.ExperimentID] = d
		}
		proposals = append(proposals, map[string]any{"proposal_id": p.ID, "proposal_revision": p.Revision, "base_sha": p.BaseSHA,
			"proposal_sha": p.ProposalSHA, "summary": p.Summary, "decisions": ds, "created_at": p.CreatedAt})
	}
	corpus := decodeCorpus(r.CorpusJSON)
	ids := make([]string, 0, len(corpus))
	for _, e := range corpus {
		ids = append(ids, e.ExperimentID)
	}
	codes, err := models.ExperimentCodes(ctx, s.DB, ids)
	if err != nil {
		return nil, err
	}
	exps := []map[string]any{}
	missing := []string{}
	for _, e := range corpus {
		report, err := s.docRef(ctx, e.ReportArtifactID, false)
		if err != nil {
			return nil, err
		}
		summary := e.Conclusion
		if report != nil && summary == "" {
			summary = report["tldr"].(string)
		}
		code, ok := codes[e.ExperimentID]
		entry := map[string]any{"experiment_id": e.ExperimentID, "name": e.Name, "status": e.Status, "central_sha_at_snapshot": e.BaseSHA,
			"result_summary": summary, "result_artifact_id": e.ResultArtifactID, "decision": nil}
		maps.Copy(entry, codeView(code, ok)) // branch, base_sha, head_sha as the experiment recorded them
		if d, ok := latest[e.ExperimentID]; ok {
			entry["decision"] = d
		} else {
			missing = append(missing, e.ExperimentID)
		}
		exps = append(exps, entry)
	}
	var feedback []map[string]any
	reqs, err := models.SubmittedReviews(ctx, s.DB, r.ID, kindConsolidation)
	if err != nil {
		return nil, err
	}
	for _, q := range reqs {
		if sess, err := models.ReviewSessionOfRequest(ctx, s.DB, q.ID); err == nil {
			feedback = append(feedback, map[string]any{"review_request_id": q.ID, "verdict": sess.Verdict, "synopsis": sess.Synopsis, "notes": sess.Notes,
				"findings": decodedJSON(sess.FindingsJSON), "evidence": decodedJSON(sess.EvidenceJSON)})
		}
	}
	cur, err := s.central().Read(ctx, r.ProjectID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"reflection": view["reflection"], "roster": view["roster"], "synthesis": view["synthesis"],
		"central":   map[string]any{"ref": s.central().Name(r.ProjectID), "sha": cur},
		"packet":    map[string]any{"immutable": true, "experiments": exps, "proposal_coverage": map[string]any{"covered": len(exps) - len(missing), "missing": missing}},
		"proposals": proposals, "prior_consolidation_review_feedback": feedback,
		"rules": map[string]any{"dispositions": dispositions, "integration_kinds": integrationKinds,
			"code_carrying": "used_as_is and adapted need source_sha and an integration_kind other than none; superseded needs superseded_by"}}, nil
}

func consolidationSubmit(ctx context.Context, s *Service, c *Call) (any, error) {
	var in consolidationArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	r, err := s.reflectionRow(ctx, c, in.ProjectID, in.ReflectionID)
	if err != nil {
		return nil, err
	}
	st, err := s.reflectionState(ctx, r.ID)
	if err != nil {
		return nil, err
	}
	if st.Status != rg.Consolidating {
		return nil, toolErr(CodeGateBlocked, "/reflection_id", "the reflection is %s; a consolidation proposal is taken only while consolidating", st.Status)
	}
	if st.Advance != nil {
		return nil, toolErr(CodeConflict, "/reflection_id", "a central advance is %s; proposals are refused while one is intended or bound", st.Advance.Status)
	}
	if st.Proposal != nil {
		return nil, &ToolError{Code: CodeConflict, Pointer: "/reflection_id", Message: "a consolidation proposal was already submitted for this attempt (revision) and is immutable",
			Details: map[string]any{"proposal_id": st.Proposal.ProposalID, "proposal_revision": st.Proposal.Revision}}
	}
	if err := checkDecisions(st.Corpus, in.Decisions); err != nil {
		return nil, err
	}
	val, _ := json.Marshal(in.Validation)
	ds, _ := json.Marshal(in.Decisions)
	p := models.ConsolidationProposal{ID: models.NewID("cp_"), ProjectID: r.ProjectID, ReflectionID: r.ID, Revision: st.ProposalRevision,
		BaseSHA: in.BaseSHA, ProposalSHA: in.ProposalSHA, Summary: in.Summary, ValidationJSON: string(val), DecisionsJSON: string(ds),
		CreatedBy: c.Principal.CredentialID}
	ref := wf.ProposalRef{ProposalID: p.ID, Revision: p.Revision, BaseSHA: p.BaseSHA, ProposalSHA: p.ProposalSHA}
	var stored *notice
	if err := models.SubmitProposal(ctx, s.DB, p, func() (err error) {
		stored, err = s.notifyReflection(ctx, r.ID, wf.ProposalSubmittedSignal, p.ID, ref)
		return err
	}); err != nil {
		return nil, err
	}
	stored.answer(ctx, nil)
	return map[string]any{"proposal_id": p.ID, "proposal_revision": p.Revision, "immutable": true, "reflection_id": r.ID,
		"next": "request the consolidation review (review.request role consolidation_reviewer)"}, nil
}

// checkDecisions wants exactly one decision per corpus experiment, each
// consistent: code-carrying dispositions name source_sha and a kind other
// than none; superseded names superseded_by.
func checkDecisions(corpus []string, ds []proposalDecision) error {
	in := map[string]bool{}
	for _, id := range corpus {
		in[id] = true
	}
	seen := map[string]bool{}
	for i, d := range ds {
		at := "/decisions/" + strconv.Itoa(i)
		switch {
		case !in[d.ExperimentID]:
			return invalid(at+"/experiment_id", "experiment "+d.ExperimentID+" is not in this wave's corpus")
		case seen[d.ExperimentID]:
			return invalid(at+"/experiment_id", "experiment "+d.ExperimentID+" has more than one decision")
		case (d.Disposition == "used_as_is" || d.Disposition == "adapted") && d.SourceSHA == "":
			return invalid(at+"/source_sha", d.Disposition+" carries code: give source_sha")
		case (d.Disposition == "used_as_is" || d.Disposition == "adapted") && d.IntegrationKind == "none":
			return invalid(at+"/integration_kind", d.Disposition+" carries code: integration_kind cannot be none")
		case d.Disposition == "superseded" && d.SupersededBy == "":
			return invalid(at+"/superseded_by", "superseded needs superseded_by")
		}
		seen[d.ExperimentID] = true
	}
	var missing []string
	for _, id := range corpus {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return &ToolError{Code: CodeInvalidInput, Pointer: "/decisions", Message: "one decision per corpus experiment is required",
			Details: map[string]any{"missing_experiment_ids": missing}}
	}
	return nil
}
