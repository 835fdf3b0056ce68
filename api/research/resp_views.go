package research

import "time"

// Views shared by several answers: an experiment's summary, an
// artifact's view and an experiment's code. Fields are declared in the
// alphabetical order of their JSON keys, the order the maps they replace
// encoded in, so the bytes are unchanged.

// experimentSummaryResp is an experiment as lists and envelopes show it
// (experimentSummary); project_id and workflow_id only in the operator's
// list.
type experimentSummaryResp struct {
	AttemptIndex int    `json:"attempt_index"`
	CurrentGate  string `json:"current_gate"`
	ExperimentID string `json:"experiment_id"`
	Intent       string `json:"intent"`
	Name         string `json:"name"`
	NextAction   string `json:"next_action"`
	ProjectID    string `json:"project_id,omitempty"`
	Status       string `json:"status"`
	WorkflowID   string `json:"workflow_id,omitempty"`
}

// artifactViewResp is an artifact's record (artifactView): its hash,
// size, upload time and validity once uploaded, its problems if any, and
// its content when artifact.find asked for it (include_content).
type artifactViewResp struct {
	ArtifactID   string     `json:"artifact_id"`
	AttemptIndex int        `json:"attempt_index"`
	Content      *string    `json:"content,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	Path         string     `json:"path"`
	Problems     []string   `json:"problems,omitempty"`
	Role         string     `json:"role"`
	SHA256       *string    `json:"sha256,omitempty"`
	SizeBytes    *int64     `json:"size_bytes,omitempty"`
	TargetID     string     `json:"target_id"`
	TargetType   string     `json:"target_type"`
	Title        string     `json:"title"`
	Uploaded     bool       `json:"uploaded"`
	UploadedAt   *time.Time `json:"uploaded_at,omitempty"`
	Valid        *bool      `json:"valid,omitempty"`
}

// codeViewResp is an experiment's code state (codeView): branch,
// base_sha and head_sha always, null when unrecorded; base_source and
// head_source (also null when unrecorded) only once the experiment
// recorded its code, so their outer pointer is nil when left out.
type codeViewResp struct {
	BaseSHA    *string  `json:"base_sha"`
	BaseSource **string `json:"base_source,omitempty"`
	Branch     *string  `json:"branch"`
	HeadSHA    *string  `json:"head_sha"`
	HeadSource **string `json:"head_source,omitempty"`
}
