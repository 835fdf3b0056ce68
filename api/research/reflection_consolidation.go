package research

import (
	"context"
	"encoding/json"
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
	proposals := make([]consolidationProposalResp, 0, len(props))
	for _, p := range props {
		var ds []proposalDecision
		_ = json.Unmarshal([]byte(p.DecisionsJSON), &ds)
		latest = map[string]proposalDecision{}
		for _, d := range ds {
			latest[d.ExperimentID] = d
		}
		proposals = append(proposals, consolidationProposalResp{ProposalID: p.ID, ProposalRevision: p.Revision, BaseSHA: p.BaseSHA,
			ProposalSHA: p.ProposalSHA, Summary: p.Summary, Decisions: ds, CreatedAt: p.CreatedAt})
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
	exps := []consolidationEntryResp{}
	missing := []string{}
	for _, e := range corpus {
		report, err := s.docRef(ctx, e.ReportArtifactID, false)
		if err != nil {
			return nil, err
		}
		summary := e.Conclusion
		if report != nil && summary == "" {
			summary = report.TLDR
		}
		code, ok := codes[e.ExperimentID]
		entry := consolidationEntryResp{ExperimentID: e.ExperimentID, Name: e.Name, Status: e.Status, CentralSHAAtSnapshot: e.BaseSHA,
			ResultSummary: summary, ResultArtifactID: e.ResultArtifactID}
		// branch, base_sha, head_sha (and their sources) as the experiment recorded them
		cv := codeView(code, ok)
		entry.Branch, entry.BaseSHA, entry.HeadSHA = cv.Branch, cv.BaseSHA, cv.HeadSHA
		entry.BaseSource, entry.HeadSource = cv.BaseSource, cv.HeadSource
		if d, ok := latest[e.ExperimentID]; ok {
			entry.Decision = &d
		} else {
			missing = append(missing, e.ExperimentID)
		}
		exps = append(exps, entry)
	}
	var feedback []consolidationFeedbackResp
	reqs, err := models.SubmittedReviews(ctx, s.DB, r.ID, kindConsolidation)
	if err != nil {
		return nil, err
	}
	for _, q := range reqs {
		if sess, err := models.ReviewSessionOfRequest(ctx, s.DB, q.ID); err == nil {
			feedback = append(feedback, consolidationFeedbackResp{ReviewRequestID: q.ID, Verdict: sess.Verdict, Synopsis: sess.Synopsis, Notes: sess.Notes,
				Findings: decodedJSON(sess.FindingsJSON), Evidence: decodedJSON(sess.EvidenceJSON)})
		}
	}
	cur, err := s.central().Read(ctx, r.ProjectID)
	if err != nil {
		return nil, err
	}
	return consolidationGetResp{Reflection: view.Reflection, Roster: view.Roster, Synthesis: view.Synthesis,
		Central: consolidationCentralResp{Ref: s.central().Name(r.ProjectID), SHA: cur},
		Packet: consolidationPacketResp{Immutable: true, Experiments: exps,
			ProposalCoverage: consolidationCoverageResp{Covered: len(exps) - len(missing), Missing: missing}},
		Proposals: proposals, PriorConsolidationReviewFeedback: feedback,
		Rules: consolidationRulesResp{Dispositions: dispositions, IntegrationKinds: integrationKinds,
			CodeCarrying: "used_as_is and adapted need source_sha and an integration_kind other than none; superseded needs superseded_by"}}, nil
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
	return consolidationSubmitResp{ProposalID: p.ID, ProposalRevision: p.Revision, Immutable: true, ReflectionID: r.ID,
		Next: "request the consolidation review (review.request role consolidation_reviewer)"}, nil
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
