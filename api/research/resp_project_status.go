package research

import (
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
	"github.com/gatehouse/gatehouse/workflows/research/gates"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// Response bodies of the project tools and workflow.status_and_next.
// Fields are declared in the alphabetical order of their JSON keys, the
// order the maps they replace encoded in, so the bytes are unchanged.

// projectResp answers project.get, project.update and project current.
type projectResp struct {
	Project models.Project `json:"project"`
}

// projectChoiceResp answers project current when the credential may use
// several projects (or none) and named none.
type projectChoiceResp struct {
	Hint     string           `json:"hint"`
	Project  *models.Project  `json:"project"`
	Projects []models.Project `json:"projects"`
}

// projectCreateResp answers project create; created is false when the
// name already existed.
type projectCreateResp struct {
	Created bool           `json:"created"`
	Project models.Project `json:"project"`
}

// projectListResp answers project.list.
type projectListResp struct {
	Projects []models.Project `json:"projects"`
}

// projectOverviewResp answers project overview: experiments by status,
// claims and champion.
type projectOverviewResp struct {
	ChampionID          string                  `json:"champion_id"`
	Claims              []models.Claim          `json:"claims"`
	Experiments         []experimentSummaryResp `json:"experiments"`
	ExperimentsByStatus map[string]int          `json:"experiments_by_status"`
	Project             models.Project          `json:"project"`
}

// projectContextResp is the project-scope status's context.
type projectContextResp struct {
	Claims            []models.Claim          `json:"claims"`
	Experiments       []experimentSummaryResp `json:"experiments"`
	LatestReflection  any                     `json:"latest_reflection"`
	LiteratureSummary any                     `json:"literature_summary"`
	Project           models.Project          `json:"project"`
}

// projectStatusResp is the project-scope status_and_next envelope, with
// the open wave's summary while one is open.
type projectStatusResp struct {
	Context    *projectContextResp    `json:"context"`
	Experiment any                    `json:"experiment"` // always null: no experiment is in scope
	Reflection *reflectionSummaryResp `json:"reflection,omitempty"`
	Scope      string                 `json:"scope"`
	Workflow   any                    `json:"workflow"`
}

// projectWorkflowResp is the project-scope workflow block without an
// open wave.
type projectWorkflowResp struct {
	AllowedActions  []string                `json:"allowed_actions"`
	BlockedActions  []gateengine.Blocked    `json:"blocked_actions"`
	CurrentGate     string                  `json:"current_gate"`
	LiveExperiments []experimentSummaryResp `json:"live_experiments"`
	MissingEvidence []string                `json:"missing_evidence"`
	NextAction      string                  `json:"next_action"`
	RevisionContext *wf.RevisionContext     `json:"revision_context"`
}

// reflectionWorkflowResp is the project-scope workflow block while a
// wave is open: the wave's gate.
type reflectionWorkflowResp struct {
	AllowedActions     []string                `json:"allowed_actions"`
	AllowedTransitions []string                `json:"allowed_transitions"`
	ArtifactGuidance   *reflectionGuidanceResp `json:"artifact_guidance,omitempty"`
	AttemptIndex       int                     `json:"attempt_index"`
	BlockedActions     []gateengine.Blocked    `json:"blocked_actions"`
	CentralAdvance     *wf.AdvanceState        `json:"central_advance,omitempty"`
	CurrentGate        string                  `json:"current_gate"`
	LiveExperiments    []experimentSummaryResp `json:"live_experiments"`
	MissingEvidence    []string                `json:"missing_evidence"`
	NextAction         string                  `json:"next_action"`
	ProposalRevision   int                     `json:"proposal_revision"`
	ReflectionID       string                  `json:"reflection_id"`
	ReviewGate         *reviewGateResp         `json:"review_gate,omitempty"`
	RevisionContext    *wf.RevisionContext     `json:"revision_context"`
	Status             rg.Status               `json:"status"`
}

// reflectionGuidanceResp is the artifact the wave's next action needs;
// for a lens doc, the next lens (lens only when it is on the roster).
type reflectionGuidanceResp struct {
	Checks     []string `json:"checks"`
	Guidance   string   `json:"guidance"`
	Lens       *rg.Lens `json:"lens,omitempty"`
	LensID     *string  `json:"lens_id,omitempty"`
	Path       string   `json:"path"`
	Role       string   `json:"role"`
	TargetID   string   `json:"target_id"`
	TargetType string   `json:"target_type"`
	Template   string   `json:"template"`
}

// experimentStatusResp is the experiment-scope status_and_next envelope.
type experimentStatusResp struct {
	Context  experimentContextResp  `json:"context"`
	Project  experimentProjectResp  `json:"project"`
	Sandbox  sandboxBlockResp       `json:"sandbox"`
	Scope    string                 `json:"scope"`
	Workflow experimentWorkflowResp `json:"workflow"`
}

// experimentProjectResp names the experiment's project.
type experimentProjectResp struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// experimentWorkflowResp is the experiment's gate in status_and_next.
type experimentWorkflowResp struct {
	AllowedActions     []string                `json:"allowed_actions"`
	AllowedTransitions []string                `json:"allowed_transitions"`
	ArtifactGuidance   *experimentGuidanceResp `json:"artifact_guidance,omitempty"`
	AttemptIndex       int                     `json:"attempt_index"`
	BlockedActions     []gateengine.Blocked    `json:"blocked_actions"`
	CurrentGate        string                  `json:"current_gate"`
	LiveExperiments    []experimentSummaryResp `json:"live_experiments"`
	MissingEvidence    []string                `json:"missing_evidence"`
	NextAction         string                  `json:"next_action"`
	ReviewGate         *reviewGateResp         `json:"review_gate,omitempty"`
	RevisionContext    *wf.RevisionContext     `json:"revision_context"`
	Status             gates.Status            `json:"status"`
}

// experimentGuidanceResp is the artifact the experiment's next action
// needs: where it goes, its template and the checks it must pass.
type experimentGuidanceResp struct {
	Checks           []string `json:"checks"`
	Guidance         string   `json:"guidance"`
	MaxBytes         int      `json:"max_bytes"`
	Path             string   `json:"path"`
	RequiredSections []string `json:"required_sections"`
	Role             string   `json:"role"`
	TargetType       string   `json:"target_type"`
	Template         string   `json:"template"`
}

// experimentContextResp is the experiment-scope status's context: the
// attempt's artifacts, the current plan and report, and the code.
type experimentContextResp struct {
	Artifacts  []artifactViewResp    `json:"artifacts"`
	Code       codeViewResp          `json:"code"`
	Experiment experimentSummaryResp `json:"experiment"`
	Plan       *artifactContentResp  `json:"plan"`
	Report     *artifactContentResp  `json:"report"`
}

// artifactContentResp is an artifact's id and text.
type artifactContentResp struct {
	ArtifactID string `json:"artifact_id"`
	Content    string `json:"content"`
}

// reviewGateResp is the review_gate block of a status envelope (see
// reviewGateOf): request_id and expires_at only while a review is asked
// for, expired_request_id and hint only when the producer must ask again.
type reviewGateResp struct {
	ExpiredRequestID string     `json:"expired_request_id,omitempty"`
	ExpiresAt        *time.Time `json:"expires_at,omitempty"`
	Hint             string     `json:"hint,omitempty"`
	Label            string     `json:"label"`
	ReadOnly         bool       `json:"read_only"`
	RequestID        string     `json:"request_id,omitempty"`
	Role             string     `json:"role"`
	Skill            string     `json:"skill"`
	Status           string     `json:"status"`
	TargetID         string     `json:"target_id"`
	TargetType       string     `json:"target_type"`
}
