package research

import (
	"time"

	wf "github.com/gatehouse/gatehouse/workflows/research"
	rg "github.com/gatehouse/gatehouse/workflows/research/reflectgates"
)

// Response bodies of the reflection and consolidation tools. Fields are
// declared in the alphabetical order of their JSON keys, the order the
// maps they replace encoded in, so the bytes are unchanged.

// reflectionSummaryResp is one wave in reflection.list and the open
// wave of the project status.
type reflectionSummaryResp struct {
	AttemptIndex            int        `json:"attempt_index"`
	CreatedAt               time.Time  `json:"created_at"`
	CurrentGate             string     `json:"current_gate"`
	NextAction              string     `json:"next_action"`
	Open                    bool       `json:"open"`
	ProjectGraphArtifactID  string     `json:"project_graph_artifact_id"`
	PublishedAt             *time.Time `json:"published_at"`
	ReflectionDocArtifactID string     `json:"reflection_doc_artifact_id"`
	ReflectionID            string     `json:"reflection_id"`
	Status                  string     `json:"status"`
	Title                   string     `json:"title"`
}

// reflectionListResp answers reflection.list.
type reflectionListResp struct {
	Authority   string                  `json:"authority"`
	Reflections []reflectionSummaryResp `json:"reflections"`
}

// reflectionCreateResp answers reflection.create.
type reflectionCreateResp struct {
	Corpus       []corpusEntry `json:"corpus"`
	Folder       string        `json:"folder"`
	Next         string        `json:"next"`
	ReflectionID string        `json:"reflection_id"`
	Roster       []rg.Lens     `json:"roster"`
	Status       rg.Status     `json:"status"`
	WorkflowID   string        `json:"workflow_id"`
}

// reflectionViewResp answers reflection.get: the authoritative wave.
type reflectionViewResp struct {
	ContentIncluded bool                   `json:"content_included"`
	Corpus          []reflectionCorpusResp `json:"corpus"`
	Coverage        reflectionCoverageResp `json:"coverage"`
	PriorPublished  *reflectionPriorResp   `json:"prior_published"`
	Reflection      reflectionHeadResp     `json:"reflection"`
	Roster          []reflectionLensResp   `json:"roster"`
	Synthesis       map[string]*docRefResp `json:"synthesis"`
}

// reflectionHeadResp is the wave's workflow state in reflection.get.
type reflectionHeadResp struct {
	AttemptIndex     int                 `json:"attempt_index"`
	CentralAdvance   *wf.AdvanceState    `json:"central_advance"`
	CurrentGate      string              `json:"current_gate"`
	NextAction       string              `json:"next_action"`
	PastAdvances     []wf.AdvanceState   `json:"past_advances"`
	ProjectID        string              `json:"project_id"`
	ProposalRevision int                 `json:"proposal_revision"`
	Published        *wf.PublishResult   `json:"published"`
	ReflectionID     string              `json:"reflection_id"`
	RevisionContext  *wf.RevisionContext `json:"revision_context"`
	Status           rg.Status           `json:"status"`
	Title            string              `json:"title"`
}

// reflectionLensResp is one roster lens with its coverage; doc only once
// a current-attempt lens doc landed.
type reflectionLensResp struct {
	Charter     string `json:"charter"`
	Core        bool   `json:"core"`
	Covered     bool   `json:"covered"`
	Doc         any    `json:"doc,omitempty"`
	ID          string `json:"id"`
	Path        string `json:"path"`
	Title       string `json:"title"`
	WhyDistinct string `json:"why_distinct"`
}

// reflectionCoverageResp is how many roster lenses have a valid doc.
type reflectionCoverageResp struct {
	Covered    int    `json:"covered"`
	NextLensID string `json:"next_lens_id"`
	Total      int    `json:"total"`
}

// reflectionPriorResp is the project's previous published wave.
type reflectionPriorResp struct {
	ProjectGraph  *docRefResp `json:"project_graph"`
	PublishedAt   *time.Time  `json:"published_at"`
	ReflectionDoc *docRefResp `json:"reflection_doc"`
	ReflectionID  string      `json:"reflection_id"`
}

// reflectionPublishedResp is the project's newest published wave in the
// project status's context.
type reflectionPublishedResp struct {
	ProjectGraph  *docRefResp `json:"project_graph"`
	PublishedAt   *time.Time  `json:"published_at"`
	ReflectionDoc *docRefResp `json:"reflection_doc"`
	ReflectionID  string      `json:"reflection_id"`
	Title         string      `json:"title"`
}

// reflectionCorpusResp is one snapshotted corpus experiment.
type reflectionCorpusResp struct {
	Conclusion       string      `json:"conclusion"`
	ExperimentID     string      `json:"experiment_id"`
	Graph            *docRefResp `json:"graph"`
	Intent           string      `json:"intent"`
	Name             string      `json:"name"`
	Report           *docRefResp `json:"report"`
	ResultArtifactID string      `json:"result_artifact_id"`
	Status           string      `json:"status"`
}

// consolidationGetResp answers consolidation.get.
type consolidationGetResp struct {
	Central                          consolidationCentralResp    `json:"central"`
	Packet                           consolidationPacketResp     `json:"packet"`
	PriorConsolidationReviewFeedback []consolidationFeedbackResp `json:"prior_consolidation_review_feedback"`
	Proposals                        []consolidationProposalResp `json:"proposals"`
	Reflection                       reflectionHeadResp          `json:"reflection"`
	Roster                           []reflectionLensResp        `json:"roster"`
	Rules                            consolidationRulesResp      `json:"rules"`
	Synthesis                        map[string]*docRefResp      `json:"synthesis"`
}

// consolidationCentralResp is the project's central ref and its sha.
type consolidationCentralResp struct {
	Ref string `json:"ref"`
	SHA string `json:"sha"`
}

// consolidationPacketResp is the immutable experiment packet.
type consolidationPacketResp struct {
	Experiments      []consolidationEntryResp  `json:"experiments"`
	Immutable        bool                      `json:"immutable"`
	ProposalCoverage consolidationCoverageResp `json:"proposal_coverage"`
}

// consolidationCoverageResp is how many corpus experiments the latest
// proposal decides, and which it misses.
type consolidationCoverageResp struct {
	Covered int      `json:"covered"`
	Missing []string `json:"missing"`
}

// consolidationEntryResp is one corpus experiment of the packet, with its
// code as codeView shows it: branch, base_sha and head_sha always,
// base_source and head_source once recorded; decision null until a
// proposal decides it.
type consolidationEntryResp struct {
	BaseSHA              *string           `json:"base_sha"`
	BaseSource           **string          `json:"base_source,omitempty"`
	Branch               *string           `json:"branch"`
	CentralSHAAtSnapshot string            `json:"central_sha_at_snapshot"`
	Decision             *proposalDecision `json:"decision"`
	ExperimentID         string            `json:"experiment_id"`
	HeadSHA              *string           `json:"head_sha"`
	HeadSource           **string          `json:"head_source,omitempty"`
	Name                 string            `json:"name"`
	ResultArtifactID     string            `json:"result_artifact_id"`
	ResultSummary        string            `json:"result_summary"`
	Status               string            `json:"status"`
}

// consolidationFeedbackResp is one submitted consolidation review.
type consolidationFeedbackResp struct {
	Evidence        any    `json:"evidence"`
	Findings        any    `json:"findings"`
	Notes           string `json:"notes"`
	ReviewRequestID string `json:"review_request_id"`
	Synopsis        string `json:"synopsis"`
	Verdict         string `json:"verdict"`
}

// consolidationProposalResp is one submitted proposal.
type consolidationProposalResp struct {
	BaseSHA          string             `json:"base_sha"`
	CreatedAt        time.Time          `json:"created_at"`
	Decisions        []proposalDecision `json:"decisions"`
	ProposalID       string             `json:"proposal_id"`
	ProposalRevision int                `json:"proposal_revision"`
	ProposalSHA      string             `json:"proposal_sha"`
	Summary          string             `json:"summary"`
}

// consolidationRulesResp are the decision rules consolidation.get states.
type consolidationRulesResp struct {
	CodeCarrying     string   `json:"code_carrying"`
	Dispositions     []string `json:"dispositions"`
	IntegrationKinds []string `json:"integration_kinds"`
}

// consolidationSubmitResp answers consolidation.submit.
type consolidationSubmitResp struct {
	Immutable        bool   `json:"immutable"`
	Next             string `json:"next"`
	ProposalID       string `json:"proposal_id"`
	ProposalRevision int    `json:"proposal_revision"`
	ReflectionID     string `json:"reflection_id"`
}

// docRefResp is one artifact as reflection answers name it (docRef): its
// TLDR always, lens_id for a lens doc, its body only with
// include_content. A nil *docRefResp (no artifact named) encodes null.
type docRefResp struct {
	ArtifactID string  `json:"artifact_id"`
	Content    *string `json:"content,omitempty"`
	LensID     string  `json:"lens_id,omitempty"`
	Path       string  `json:"path"`
	Role       string  `json:"role"`
	SHA256     string  `json:"sha256"`
	TLDR       string  `json:"tldr"`
	Valid      bool    `json:"valid"`
}
