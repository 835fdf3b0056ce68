package flylab

import (
	"context"
	"slices"
	"strings"
	"time"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// FindCircuits runs find_fly_circuits and stores the discovery decision,
// unless the call defers it to the commit's snapshot (recomputeResult).
func (a *Activities) FindCircuits(ctx context.Context, call wf.ToolCall) (wf.ToolEffect, error) {
	var q science.SearchQuery
	if err := decodeArgs(call.Args, &q); err != nil {
		return fail(wf.CodeInvalidInput, "arguments are not a valid find_fly_circuits request", nil), nil
	}
	res, err := science.SearchCircuits(q)
	if err != nil {
		return effectOf(err)
	}
	if !call.DeferResult {
		if err := models.PutToolResult(ctx, a.DB, call.ResultKey, call.SessionID, call.Tool, res); err != nil {
			return wf.ToolEffect{}, err
		}
	}
	ref := &wf.DiscoveryRef{ID: res.DiscoveryDecision.ID, Goal: q.Query, EligibleIDs: res.HypothesisEligibleEvidenceIDs,
		Causal: res.CausalEvidenceIDsByPerturbation, ResultKey: call.ResultKey, EvidenceIDs: []string{}}
	if res.SelectedCircuitID != nil {
		ref.SelectedCircuitID = *res.SelectedCircuitID
	}
	for _, e := range res.Evidence {
		ref.EvidenceIDs = append(ref.EvidenceIDs, e.ID)
	}
	return wf.ToolEffect{CreatedArtifactIDs: []string{res.DiscoveryDecision.ID}, Patch: wf.Patch{Discovery: ref}}, nil
}

type draftArgs struct {
	CircuitID              string   `json:"circuit_id"`
	Claim                  string   `json:"claim"`
	PredictedBehavior      string   `json:"predicted_behavior"`
	Perturbation           string   `json:"perturbation"`
	PrimaryOutcome         string   `json:"primary_outcome"`
	ExpectedDirection      string   `json:"expected_direction"`
	Controls               []string `json:"controls"`
	EvidenceIDs            []string `json:"evidence_ids"`
	EvidenceLimitations    []string `json:"evidence_limitations"`
	FalsificationCriterion string   `json:"falsification_criterion"`
}

// HypothesisRecord is the agent_hypothesized record draft_fly_hypothesis
// returns and the evidence bundle carries.
type HypothesisRecord struct {
	ID                     string   `json:"id"`
	ArtifactType           string   `json:"artifact_type"`
	CircuitID              string   `json:"circuitId"`
	Claim                  string   `json:"claim"`
	PredictedBehavior      string   `json:"predictedBehavior"`
	Perturbation           string   `json:"perturbation"`
	PrimaryOutcome         string   `json:"primaryOutcome"`
	ExpectedDirection      string   `json:"expectedDirection"`
	Controls               []string `json:"controls"`
	EvidenceIDs            []string `json:"evidenceIds"`
	CausalEvidenceIDs      []string `json:"causalEvidenceIds"`
	EvidenceLimitations    []string `json:"evidenceLimitations"`
	FalsificationCriterion string   `json:"falsificationCriterion"`
	Status                 string   `json:"status"`
	Editable               bool     `json:"editable"`
	Provenance             []string `json:"provenance"`
	ParentIDs              []string `json:"parent_ids"`
	SourceIDs              []string `json:"sourceIds"`
	Boundary               string   `json:"boundary"`
}

// DraftHypothesis runs draft_fly_hypothesis: the cited evidence must have
// been discovered in this session and include a matching causal record.
func (a *Activities) DraftHypothesis(ctx context.Context, call wf.ToolCall) (wf.ToolEffect, error) {
	var in draftArgs
	if err := decodeArgs(call.Args, &in); err != nil {
		return fail(wf.CodeInvalidInput, "arguments are not a valid draft_fly_hypothesis request", nil), nil
	}
	d := call.Session.Discovery
	if d == nil {
		return fail(wf.CodeNotFound, "no discovery in this session; call find_fly_circuits first", nil), nil
	}
	var undiscovered []string
	for _, id := range in.EvidenceIDs {
		if !slices.Contains(d.EvidenceIDs, id) {
			undiscovered = append(undiscovered, id)
		}
	}
	if len(undiscovered) > 0 {
		return fail(wf.CodeEvidenceMismatch, "cited evidence was not discovered in this session",
			map[string]any{"undiscovered_evidence_ids": undiscovered}), nil
	}
	causal, err := science.CheckHypothesisEvidence(in.CircuitID, in.PredictedBehavior, in.Perturbation, in.PrimaryOutcome, in.EvidenceIDs)
	if err != nil {
		return effectOf(err)
	}
	sources := []string{}
	for _, id := range in.EvidenceIDs {
		if e, err := science.EvidenceByID(id); err == nil {
			sources = append(sources, e.SourceIDs...)
		}
	}
	slices.Sort(sources)
	rec := HypothesisRecord{ArtifactType: "hypothesis", CircuitID: in.CircuitID, Claim: strings.TrimSpace(in.Claim),
		PredictedBehavior: in.PredictedBehavior, Perturbation: in.Perturbation, PrimaryOutcome: in.PrimaryOutcome,
		ExpectedDirection: in.ExpectedDirection, Controls: in.Controls, EvidenceIDs: in.EvidenceIDs, CausalEvidenceIDs: causal,
		EvidenceLimitations: in.EvidenceLimitations, FalsificationCriterion: in.FalsificationCriterion, Status: "draft",
		Editable: true, Provenance: []string{science.LabelAgentHypothesized}, ParentIDs: []string{d.ID},
		SourceIDs: slices.Compact(sources),
		Boundary:  "An untested proposal authored by an agent; it is distinct from source evidence and simulation output."}
	id, err := science.ContentHash(map[string]any{"session": call.SessionID, "hypothesis": rec})
	if err != nil {
		return wf.ToolEffect{}, err
	}
	rec.ID = "hyp_" + id[len("sha256:"):len("sha256:")+32]
	body, err := toJSON(rec)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.CreateOnce(ctx, a.DB, &models.Hypothesis{ID: rec.ID, SessionID: call.SessionID, CircuitID: rec.CircuitID,
		Body: body, CreatedAt: time.Now().UTC()}); err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.PutToolResult(ctx, a.DB, call.ResultKey, call.SessionID, call.Tool, map[string]any{"hypothesis": rec}); err != nil {
		return wf.ToolEffect{}, err
	}
	return wf.ToolEffect{CreatedArtifactIDs: []string{rec.ID}, Patch: wf.Patch{Hypothesis: &wf.HypothesisRef{
		ID: rec.ID, CircuitID: rec.CircuitID, Behavior: rec.PredictedBehavior, Perturbation: rec.Perturbation,
		PrimaryOutcome: rec.PrimaryOutcome, Direction: rec.ExpectedDirection, EvidenceIDs: rec.EvidenceIDs}}}, nil
}
