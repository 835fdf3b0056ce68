package research

// ReflectionRecord is what RecordReflectionActivity mirrors into the database.
type ReflectionRecord struct {
	ReflectionID string `json:"reflection_id"`
	Status       string `json:"status"`
	Gate         string `json:"current_gate"`
	NextAction   string `json:"next_action"`
	Attempt      int    `json:"attempt_index"`
	Revision     int    `json:"revision"`
	Terminal     bool   `json:"terminal"`
}

// AdvanceInput asks AdvanceCentralActivity to move a project's central ref.
type AdvanceInput struct {
	ProjectID    string `json:"project_id"`
	ReflectionID string `json:"reflection_id"`
	Revision     int    `json:"proposal_revision"`
	Expected     string `json:"expected"`
	Target       string `json:"target"`
	// Owner holds the advance's lease: the workflow run.
	Owner string `json:"owner"`
}

// AdvanceResult is a settled advance: bound, failed or stale.
type AdvanceResult struct {
	Status   string `json:"status"`
	Observed string `json:"observed"`
	Error    string `json:"error,omitempty"`
}

// PublishInput asks PublishReflectionActivity to apply a wave.
type PublishInput struct {
	ProjectID    string   `json:"project_id"`
	ReflectionID string   `json:"reflection_id"`
	ChangeSpecID string   `json:"change_spec_artifact_id"`
	GraphID      string   `json:"project_graph_artifact_id"`
	DocID        string   `json:"reflection_doc_artifact_id"`
	Corpus       []string `json:"corpus"`
}

// FollowUpRef is a follow-up experiment publish created.
type FollowUpRef struct {
	ExperimentID string `json:"experiment_id"`
	Name         string `json:"name"`
	// DependsOn maps each dependency to its status at publish.
	DependsOn map[string]string `json:"depends_on,omitempty"`
}

// PublishResult is what publish applied.
type PublishResult struct {
	ClaimsCreated []string      `json:"claims_created"`
	ClaimsChanged []string      `json:"claims_changed"`
	FollowUps     []FollowUpRef `json:"follow_up_experiments"`
	// FollowUpsSkipped are follow-ups not created because an experiment
	// took their name after the change spec was checked.
	FollowUpsSkipped []FollowUpSkip `json:"follow_ups_skipped,omitempty"`
	GraphID          string         `json:"pinned_project_graph_artifact_id"`
}

// FollowUpSkip is a follow-up publish did not create, and why.
type FollowUpSkip struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
	// ExistingExperimentID is the experiment that holds the name.
	ExistingExperimentID string `json:"existing_experiment_id,omitempty"`
}
