package flylab

import (
	"context"
	"errors"
	"time"

	science "github.com/gatehouse/gatehouse/flylab"
	models "github.com/gatehouse/gatehouse/models/flylab"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// DesignTrial runs design_stimulation_trial: the science core builds the
// controlled protocol, seed manifest and protocol hash; the experiment is
// stored awaiting approval. The earlier open experiment is revoked by the
// commit, not here (the session signals its experiment workflow, which
// records the revocation): a design that does not commit, cancelled
// before its commit or lost with its worker, revokes nothing. The
// experiment id is the session's (experimentIdentity): a replication or a
// return to an earlier design is a new experiment with its own gate.
func (a *Activities) DesignTrial(ctx context.Context, call wf.ToolCall) (wf.ToolEffect, error) {
	var req science.DesignRequest
	if err := decodeArgs(call.Args, &req); err != nil {
		return fail(wf.CodeInvalidInput, "arguments are not a valid design_stimulation_trial request", nil), nil
	}
	design, err := science.DesignProtocol(req)
	if err != nil {
		return effectOf(err)
	}
	designKey := design.Experiment.ID
	if design, err = withExperimentID(design, experimentIdentity(call, designKey)); err != nil {
		return wf.ToolEffect{}, err
	}
	hyp, err := models.Find[models.Hypothesis](ctx, a.DB, call.SessionID, req.HypothesisID)
	if errors.Is(err, models.ErrNotFound) {
		return fail(wf.CodeNotFound, "hypothesis "+req.HypothesisID+" is not in this session",
			map[string]any{"hypothesis_id": req.HypothesisID}), nil
	} else if err != nil {
		return wf.ToolEffect{}, err
	}
	var h HypothesisRecord
	if err := decodeArgs([]byte(hyp.Body), &h); err != nil {
		return wf.ToolEffect{}, err
	}
	if h.CircuitID != req.TargetCircuitID || h.Perturbation != req.Perturbation {
		return fail(wf.CodeEvidenceMismatch, "the design must target the hypothesis's circuit and perturbation",
			map[string]any{"hypothesis_circuit_id": h.CircuitID, "hypothesis_perturbation": h.Perturbation}), nil
	}
	body, err := toJSON(design)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	exp := design.Experiment
	row := models.Experiment{ID: exp.ID, SessionID: call.SessionID, HypothesisID: h.ID, Status: models.StatusAwaitingApproval,
		ProtocolHash: design.ProtocolHash, SeedManifestHash: design.SeedManifestHash, Design: body,
		CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	if err := models.CreateOnce(ctx, a.DB, &row); err != nil {
		return wf.ToolEffect{}, err
	}
	data, err := designData(design, h.ID)
	if err != nil {
		return wf.ToolEffect{}, err
	}
	if err := models.PutToolResult(ctx, a.DB, call.ResultKey, call.SessionID, call.Tool, data); err != nil {
		return wf.ToolEffect{}, err
	}
	conds := []string{exp.ID}
	for _, c := range exp.Conditions {
		conds = append(conds, c.ID)
	}
	return wf.ToolEffect{CreatedArtifactIDs: conds, Patch: wf.Patch{Experiment: &wf.ExperimentRef{
		ID: exp.ID, DesignKey: designKey, HypothesisID: h.ID, CircuitID: exp.TargetCircuitID, ProtocolHash: design.ProtocolHash,
		SeedManifestHash: design.SeedManifestHash, Status: wf.ExperimentAwaiting,
		RecommendedMetrics: exp.MotorMap.RecommendedMetrics}}}, nil
}

// experimentIdentity is the id of the experiment a design call makes. An
// identical repeat of the session's current design while its gate is open
// (awaiting approval, or approved and not yet run) keeps that experiment.
// Any other design, a replication of one that ran or a return to one a
// later design revoked included, is a new experiment: its id covers the
// design, the session and the revision the call commits, so it is new in
// every session and at every call, and the same on a retried activity.
func experimentIdentity(call wf.ToolCall, designKey string) string {
	if e := call.Session.Experiment; e != nil && e.DesignKey == designKey &&
		(e.Status == wf.ExperimentAwaiting || e.Status == wf.ExperimentApproved) {
		return e.ID
	}
	h, err := science.ContentHash(map[string]any{"design": designKey, "session": call.SessionID, "revision": call.Session.Revision})
	if err != nil {
		return designKey
	}
	return "exp_" + h[len("sha256:"):len("sha256:")+32]
}

// withExperimentID names a design's experiment id and re-derives the
// protocol hash, which covers it (the seed manifest does not).
func withExperimentID(d science.Design, id string) (science.Design, error) {
	d.Experiment.ID = id
	d.Experiment.Protocol.ExperimentID = id
	h, err := science.ProtocolHash(d.Experiment.Protocol, d.SeedManifest)
	if err != nil {
		return d, err
	}
	d.ProtocolHash = h
	return d, nil
}

func designData(d science.Design, hypothesisID string) (map[string]any, error) {
	exp, err := toMap(d.Experiment)
	if err != nil {
		return nil, err
	}
	exp["artifact_type"] = "experiment"
	exp["seedManifest"] = d.SeedManifest
	exp["protocolHash"] = d.ProtocolHash
	exp["seedManifestHash"] = d.SeedManifestHash
	exp["parent_ids"] = []string{hypothesisID}
	return map[string]any{"experiment": exp, "approval_required": true, "agent_status": "waiting_for_human",
		"blocked_by": []string{"operator_approval"}, "agent_actionable": false}, nil
}

// ApprovalRecord is the operator's approval of one protocol and seed
// manifest. Its id is the protocol hash; approved_at is outside both hashes.
type ApprovalRecord struct {
	ID                  string               `json:"id"`
	ArtifactType        string               `json:"artifact_type"`
	ExperimentID        string               `json:"experiment_id"`
	ApprovedAt          string               `json:"approved_at"`
	ApprovedBy          string               `json:"approved_by"`
	ModelVersion        string               `json:"model_version"`
	ControllerVersion   string               `json:"controller_version"`
	MetricMethodVersion string               `json:"metric_method_version"`
	SeedPolicyVersion   string               `json:"seed_policy_version"`
	Protocol            science.Protocol     `json:"protocol"`
	ProtocolHash        string               `json:"protocol_hash"`
	SeedManifest        science.SeedManifest `json:"seed_manifest"`
	SeedManifestHash    string               `json:"seed_manifest_hash"`
	Provenance          []string             `json:"provenance"`
}

// RecordDecision persists an operator decision; an approval writes the
// approval record after re-hashing the stored design.
func (a *Activities) RecordDecision(ctx context.Context, d wf.DecisionRecord) error {
	approval := ""
	if d.Status == wf.ExperimentApproved {
		row, err := models.ExperimentByID(ctx, a.DB, d.ExperimentID)
		if err != nil {
			return err
		}
		design, err := loadDesign(row)
		if err != nil {
			return err
		}
		if design.ProtocolHash != d.ProtocolHash {
			return errors.New("stored design does not match the approved protocol hash")
		}
		rec := newApproval(design, d.DecidedAt, d.DecidedBy)
		if approval, err = toJSON(rec); err != nil {
			return err
		}
	}
	return models.RecordDecision(ctx, a.DB, d.ExperimentID, d.Status, approval, d.DecidedBy, d.Reason)
}

func newApproval(d science.Design, at, by string) ApprovalRecord {
	return ApprovalRecord{ID: d.ProtocolHash, ArtifactType: "experiment_approval", ExperimentID: d.Experiment.ID,
		ApprovedAt: at, ApprovedBy: by, ModelVersion: science.ModelVersion, ControllerVersion: science.ControllerVersion,
		MetricMethodVersion: science.MetricMethodVersion, SeedPolicyVersion: science.SeedPolicyVersion,
		Protocol: d.Experiment.Protocol, ProtocolHash: d.ProtocolHash, SeedManifest: d.SeedManifest,
		SeedManifestHash: d.SeedManifestHash, Provenance: []string{science.LabelAgentHypothesized}}
}

// loadDesign re-hashes a stored design: the protocol hash must still
// match what was designed (and approved).
func loadDesign(row models.Experiment) (science.Design, error) {
	var d science.Design
	if err := decodeArgs([]byte(row.Design), &d); err != nil {
		return d, err
	}
	h, err := science.ProtocolHash(d.Experiment.Protocol, d.SeedManifest)
	if err != nil {
		return d, err
	}
	if h != row.ProtocolHash || h != d.ProtocolHash {
		return d, &science.Error{Code: science.CodeEvidenceMismatch, Message: "stored experiment no longer matches its protocol hash",
			Details: map[string]any{"expected": row.ProtocolHash, "actual": h}}
	}
	return d, nil
}

// checkApproval re-hashes an approval record against the experiment.
func checkApproval(row models.Experiment, d science.Design) (ApprovalRecord, error) {
	var rec ApprovalRecord
	if row.Approval == "" {
		return rec, &science.Error{Code: science.CodeApprovalRequired, Message: "no approval record is stored for " + row.ID}
	}
	if row.Status != models.StatusApproved && row.Status != models.StatusRan {
		// The approval lapsed (30 days unused) or a new design revoked it.
		return rec, &science.Error{Code: science.CodeApprovalRequired, Message: "the approval of " + row.ID + " no longer holds (" + row.Status + ")",
			Details: map[string]any{"experiment_id": row.ID, "status": row.Status, "reason": row.Reason}}
	}
	if err := decodeArgs([]byte(row.Approval), &rec); err != nil {
		return rec, err
	}
	h, err := science.ProtocolHash(rec.Protocol, rec.SeedManifest)
	if err != nil {
		return rec, err
	}
	sh, err := science.SeedManifestHash(rec.SeedManifest)
	if err != nil {
		return rec, err
	}
	if h != rec.ProtocolHash || h != d.ProtocolHash || sh != rec.SeedManifestHash || sh != d.SeedManifestHash {
		return rec, &science.Error{Code: science.CodeEvidenceMismatch, Message: "approval record does not match the experiment",
			Details: map[string]any{"approved_protocol_hash": rec.ProtocolHash, "recomputed": h, "experiment_protocol_hash": d.ProtocolHash}}
	}
	return rec, nil
}
