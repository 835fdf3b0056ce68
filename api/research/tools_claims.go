package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

func init() {
	conf := enum("confidence (default medium)", "low", "medium", "high")
	registerFamily("claim",
		Tool{Name: "claim.create", Handler: claimCreate, Description: "Record a claim the project holds.",
			Schema: object([]string{"project_id", "statement"}, props{"project_id": projectID, "statement": strLen("statement", 1, 4000), "scope": strLen("scope", 0, 2000), "confidence": conf})},
		Tool{Name: "claim.update", Handler: claimUpdate, Description: "Change a claim's status or confidence.",
			Schema: object([]string{"project_id", "claim_id"}, props{"project_id": projectID, "claim_id": strLen("claim id", 1, 64),
				"status": enum("status", "active", "supported", "refuted", "retired"), "confidence": conf})},
		Tool{Name: "claim.list", Hidden: true, ReadOnly: true, Handler: claimList, Description: "Internal: a project's claims.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID})},
	)
	metric := map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}, "minProperties": 1, "description": "metric name → value"}
	registerFamily("candidate",
		Tool{Name: "candidate.submit", Handler: candidateSubmit, Description: "Submit a champion candidate; the same idempotency_key returns the same candidate.",
			Schema: object([]string{"project_id", "name", "source_kind", "source_ref", "metrics", "primary_metric", "validation_summary", "idempotency_key"}, props{
				"project_id": projectID, "name": strLen("name", 1, 200), "source_kind": enum("source", "artifact", "storage_object", "experiment_workspace"),
				"source_ref": strLen("source reference", 1, 1000), "metrics": metric, "primary_metric": strLen("primary metric", 1, 200),
				"validation_summary": strLen("validation summary", 1, 8000), "idempotency_key": strLen("idempotency key", 1, 200),
				"expected_sha256": sha256Hex, "higher_is_better": boolean("default true")})},
		Tool{Name: "candidate.stage", Handler: candidateStage, Description: "Stage a candidate (artifact, storage object or evaluator receipt).",
			Schema: object([]string{"project_id", "candidate_id", "stage_kind", "stage_ref"}, props{"project_id": projectID, "candidate_id": strLen("candidate id", 1, 64),
				"stage_kind": enum("stage kind", "artifact", "storage_object", "evaluator_receipt"), "stage_ref": strLen("reference", 1, 1000),
				"content_sha256": sha256Hex, "manifest_sha256": sha256Hex})},
		Tool{Name: "candidate.promote", Handler: candidatePromote, Description: "Compare-and-swap the champion: succeeds only if the champion is still expected_champion_id (\"\" for none); on conflict refresh with candidate.list and retry.",
			Schema: object([]string{"project_id", "candidate_id", "expected_champion_id", "reason"}, props{"project_id": projectID,
				"candidate_id": strLen("candidate id", 1, 64), "expected_champion_id": strLen("current champion id or empty", 0, 64), "reason": strLen("reason", 20, 2000)})},
		Tool{Name: "candidate.list", Handler: candidateList, ReadOnly: true, Description: "Candidates, append-only promotion history (newest first) and the current champion.",
			Schema: object([]string{"project_id"}, props{"project_id": projectID})},
	)
}

type claimArgs struct {
	ProjectID  string `json:"project_id"`
	ClaimID    string `json:"claim_id"`
	Statement  string `json:"statement"`
	Scope      string `json:"scope"`
	Confidence string `json:"confidence"`
	Status     string `json:"status"`
}

func claimCreate(ctx context.Context, s *Service, c *Call) (any, error) {
	var in claimArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if in.Confidence == "" {
		in.Confidence = "medium"
	}
	cl := models.Claim{ID: models.NewID("cl_"), ProjectID: in.ProjectID, Statement: in.Statement, Scope: in.Scope, Confidence: in.Confidence, Status: "active"}
	if err := models.CreateClaim(ctx, s.DB, &cl); err != nil {
		return nil, err
	}
	return map[string]any{"claim": cl}, nil
}

func claimUpdate(ctx context.Context, s *Service, c *Call) (any, error) {
	var in claimArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	cl, err := models.ClaimInProject(ctx, s.DB, in.ProjectID, in.ClaimID)
	if err != nil {
		return nil, toolErr(CodeNotFound, "/claim_id", "no claim %s in this project", in.ClaimID)
	}
	if in.Status == "" && in.Confidence == "" {
		return nil, invalid("", "give status or confidence")
	}
	up := map[string]any{"updated_at": time.Now().UTC()}
	if in.Status != "" {
		up["status"], cl.Status = in.Status, in.Status
	}
	if in.Confidence != "" {
		up["confidence"], cl.Confidence = in.Confidence, in.Confidence
	}
	if err := models.UpdateClaim(ctx, s.DB, cl.ID, up); err != nil {
		return nil, err
	}
	return map[string]any{"claim": cl}, nil
}

func claimList(ctx context.Context, s *Service, c *Call) (any, error) {
	var in claimArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	cls, err := models.ProjectClaims(ctx, s.DB, in.ProjectID)
	return map[string]any{"claims": &cls}, err
}

type candidateArgs struct {
	ProjectID         string             `json:"project_id"`
	Name              string             `json:"name"`
	SourceKind        string             `json:"source_kind"`
	SourceRef         string             `json:"source_ref"`
	Metrics           map[string]float64 `json:"metrics"`
	PrimaryMetric     string             `json:"primary_metric"`
	ValidationSummary string             `json:"validation_summary"`
	IdempotencyKey    string             `json:"idempotency_key"`
	ExpectedSHA256    string             `json:"expected_sha256"`
	HigherIsBetter    *bool              `json:"higher_is_better"`
	CandidateID       string             `json:"candidate_id"`
	StageKind         string             `json:"stage_kind"`
	StageRef          string             `json:"stage_ref"`
	ContentSHA256     string             `json:"content_sha256"`
	ManifestSHA256    string             `json:"manifest_sha256"`
	ExpectedChampion  string             `json:"expected_champion_id"`
	Reason            string             `json:"reason"`
}

func candidateSubmit(ctx context.Context, s *Service, c *Call) (any, error) {
	var in candidateArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	if _, ok := in.Metrics[in.PrimaryMetric]; !ok {
		return nil, invalid("/primary_metric", "primary_metric must name one of metrics")
	}
	hib := in.HigherIsBetter == nil || *in.HigherIsBetter
	key := in.IdempotencyKey
	in.IdempotencyKey = ""
	canon, _ := json.Marshal(in)
	sum := sha256.Sum256(canon)
	metrics, _ := json.Marshal(in.Metrics)
	cand, created, err := models.SubmitCandidate(ctx, s.DB, models.Candidate{ProjectID: in.ProjectID, IdempotencyKey: key, RequestHash: hex.EncodeToString(sum[:]),
		Name: in.Name, SourceKind: in.SourceKind, SourceRef: in.SourceRef, MetricsJSON: string(metrics), PrimaryMetric: in.PrimaryMetric,
		ValidationSummary: in.ValidationSummary, ExpectedSHA256: in.ExpectedSHA256, HigherIsBetter: hib})
	if err != nil {
		return nil, err
	}
	return map[string]any{"candidate": candidateView(cand), "candidate_id": cand.ID, "created": created}, nil
}

func candidateView(c models.Candidate) map[string]any {
	var m map[string]float64
	_ = json.Unmarshal([]byte(c.MetricsJSON), &m)
	return map[string]any{"candidate_id": c.ID, "name": c.Name, "source_kind": c.SourceKind, "source_ref": c.SourceRef, "metrics": m,
		"primary_metric": c.PrimaryMetric, "higher_is_better": c.HigherIsBetter, "validation_summary": c.ValidationSummary, "created_at": c.CreatedAt}
}

func candidateStage(ctx context.Context, s *Service, c *Call) (any, error) {
	var in candidateArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	cand, err := models.CandidateInProject(ctx, s.DB, in.ProjectID, in.CandidateID)
	if err != nil {
		return nil, toolErr(CodeNotFound, "/candidate_id", "no candidate %s in this project", in.CandidateID)
	}
	if err := s.checkStageRef(ctx, in.ProjectID, in); err != nil {
		return nil, err
	}
	st := models.CandidateStage{ID: models.NewID("stg_"), CandidateID: cand.ID, StageKind: in.StageKind, StageRef: in.StageRef,
		ContentSHA256: in.ContentSHA256, ManifestSHA256: in.ManifestSHA256}
	if err := models.CreateCandidateStage(ctx, s.DB, &st); err != nil {
		return nil, err
	}
	return map[string]any{"stage": st, "candidate_id": cand.ID, "staged": true}, nil
}

func candidatePromote(ctx context.Context, s *Service, c *Call) (any, error) {
	var in candidateArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	res, err := models.Promote(ctx, s.DB, in.ProjectID, in.CandidateID, in.ExpectedChampion, in.Reason, c.Principal.CredentialID)
	if err != nil {
		return nil, err
	}
	champ, err := models.CandidateByID(ctx, s.DB, res.ChampionID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"champion": candidateView(champ), "champion_id": res.ChampionID, "promoted": res.Promoted}, nil
}

func candidateList(ctx context.Context, s *Service, c *Call) (any, error) {
	var in candidateArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	cands, err := models.ProjectCandidates(ctx, s.DB, in.ProjectID)
	if err != nil {
		return nil, err
	}
	proms, err := models.ProjectPromotions(ctx, s.DB, in.ProjectID)
	if err != nil {
		return nil, err
	}
	champID, err := models.ChampionOf(ctx, s.DB, in.ProjectID)
	if err != nil {
		return nil, err
	}
	views := make([]map[string]any, 0, len(cands))
	var champ any
	for _, cd := range cands {
		v := candidateView(cd)
		views = append(views, v)
		if cd.ID == champID {
			champ = v
		}
	}
	return map[string]any{"champion": champ, "champion_id": champID, "candidates": views, "promotions": proms}, nil
}
