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
	return claimAnswer{Claim: cl}, nil
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
	return claimAnswer{Claim: cl}, nil
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
	return claimsAnswer{Claims: &cls}, err
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
	return candidateSubmitted{Candidate: candidateView(cand), CandidateID: cand.ID, Created: created}, nil
}

func candidateView(c models.Candidate) candidateJSON {
	var m map[string]float64
	_ = json.Unmarshal([]byte(c.MetricsJSON), &m)
	return candidateJSON{ID: c.ID, Name: c.Name, SourceKind: c.SourceKind, SourceRef: c.SourceRef, Metrics: m,
		PrimaryMetric: c.PrimaryMetric, HigherIsBetter: c.HigherIsBetter, ValidationSummary: c.ValidationSummary, CreatedAt: c.CreatedAt}
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
	return candidateStaged{Stage: st, CandidateID: cand.ID, Staged: true}, nil
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
	return candidatePromoted{Champion: candidateView(champ), ChampionID: res.ChampionID, Promoted: res.Promoted}, nil
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
	views := make([]candidateJSON, 0, len(cands))
	var champ *candidateJSON
	for _, cd := range cands {
		v := candidateView(cd)
		views = append(views, v)
		if cd.ID == champID {
			champ = &v
		}
	}
	return candidateListAnswer{Champion: champ, ChampionID: champID, Candidates: views, Promotions: proms}, nil
}

// The claim and candidate tools' answers. Fields are in the order of
// their JSON keys, as the maps they replaced encoded them.
type (
	// claimAnswer is claim.create's and claim.update's answer.
	claimAnswer struct {
		Claim models.Claim `json:"claim"`
	}
	// claimsAnswer is claim.list's answer.
	claimsAnswer struct {
		Claims *[]models.Claim `json:"claims"`
	}
	// candidateJSON is a candidate as the tools show it.
	candidateJSON struct {
		ID                string             `json:"candidate_id"`
		CreatedAt         time.Time          `json:"created_at"`
		HigherIsBetter    bool               `json:"higher_is_better"`
		Metrics           map[string]float64 `json:"metrics"`
		Name              string             `json:"name"`
		PrimaryMetric     string             `json:"primary_metric"`
		SourceKind        string             `json:"source_kind"`
		SourceRef         string             `json:"source_ref"`
		ValidationSummary string             `json:"validation_summary"`
	}
	// candidateSubmitted is candidate.submit's answer.
	candidateSubmitted struct {
		Candidate   candidateJSON `json:"candidate"`
		CandidateID string        `json:"candidate_id"`
		Created     bool          `json:"created"`
	}
	// candidateStaged is candidate.stage's answer.
	candidateStaged struct {
		CandidateID string                `json:"candidate_id"`
		Stage       models.CandidateStage `json:"stage"`
		Staged      bool                  `json:"staged"`
	}
	// candidatePromoted is candidate.promote's answer.
	candidatePromoted struct {
		Champion   candidateJSON `json:"champion"`
		ChampionID string        `json:"champion_id"`
		Promoted   bool          `json:"promoted"`
	}
	// candidateListAnswer is candidate.list's answer; champion is null
	// while the project has none.
	candidateListAnswer struct {
		Candidates []candidateJSON    `json:"candidates"`
		Champion   *candidateJSON     `json:"champion"`
		ChampionID string             `json:"champion_id"`
		Promotions []models.Promotion `json:"promotions"`
	}
)
