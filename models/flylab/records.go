// Package flylab holds the FlyLab records that outlive a workflow: page
// sessions, stored tool results, hypotheses, experiments with their
// approval records, simulation batches, analyses, comparisons and the
// append-only evidence ledger. Every write is keyed by a content id or an
// operation key, so a retried activity never writes twice.
package flylab

import "time"

// Session is a FlyLab page session. An API key owns any number of them
// (one per mission); SelectedAt marks the one it opened or resumed last,
// which an inspect without arguments answers for. Temporal's session
// workflow is the authority for its revision and lineage while it exists;
// SessionSnapshot keeps its last committed state for when it is gone.
type Session struct {
	ID                string `gorm:"primaryKey;size:40"`
	OwnerCredentialID string `gorm:"size:32;not null;index:idx_flylab_sessions_owner_key"`
	OwnerName         string `gorm:"size:200;not null"`
	SelectedAt        *time.Time
	CreatedAt         time.Time
	// WorkflowReadsUntil, while in the future, sends the session's reads
	// to its workflow instead of its snapshot (read_route.go); the token
	// names the call or condition that set it.
	WorkflowReadsUntil *time.Time
	WorkflowReadsToken string `gorm:"size:200;not null;default:''"`
}

// TableName names the table.
func (Session) TableName() string { return "flylab_sessions" }

// ToolResult is the stored data of one committed tool call, keyed by
// session, tool and operation (the operation id, or the revision it made).
type ToolResult struct {
	Key       string `gorm:"primaryKey;size:300"`
	SessionID string `gorm:"size:40;not null;index"`
	Tool      string `gorm:"size:40;not null"`
	Data      string `gorm:"type:text;not null"`
	CreatedAt time.Time
}

// TableName names the table.
func (ToolResult) TableName() string { return "flylab_tool_results" }

// Hypothesis is a drafted, agent_hypothesized record.
type Hypothesis struct {
	ID        string `gorm:"primaryKey;size:100"`
	SessionID string `gorm:"size:40;not null;index"`
	CircuitID string `gorm:"size:100;not null"`
	Body      string `gorm:"type:text;not null"`
	CreatedAt time.Time
}

// TableName names the table.
func (Hypothesis) TableName() string { return "flylab_hypotheses" }

// Experiment statuses. Temporal's experiment workflow is the authority;
// this row mirrors it for lists and for re-hashing at run and save.
const (
	StatusAwaitingApproval = "awaiting_approval"
	StatusApproved         = "approved"
	StatusRejected         = "rejected"
	StatusRevoked          = "revoked"
	StatusRan              = "ran"
)

// Experiment is a designed trial: its design (experiment, seed manifest,
// hashes) and, once decided, the approval record.
type Experiment struct {
	ID               string `gorm:"primaryKey;size:100"`
	SessionID        string `gorm:"size:40;not null;index"`
	HypothesisID     string `gorm:"size:100;not null"`
	Status           string `gorm:"size:32;not null;index"`
	ProtocolHash     string `gorm:"size:71;not null"`
	SeedManifestHash string `gorm:"size:71;not null"`
	Design           string `gorm:"type:text;not null"`
	Approval         string `gorm:"type:text"`
	DecidedBy        string `gorm:"size:200"`
	Reason           string `gorm:"size:1000"`
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// TableName names the table.
func (Experiment) TableName() string { return "flylab_experiments" }

// Batch is a committed simulation batch; OperationKey makes a retried run
// activity find its own batch instead of writing a second one.
type Batch struct {
	ID             string `gorm:"primaryKey;size:100"`
	SessionID      string `gorm:"size:40;not null;index"`
	ExperimentID   string `gorm:"size:100;not null;index"`
	OperationKey   string `gorm:"size:300;not null;uniqueIndex:idx_flylab_batches_op"`
	RunContentHash string `gorm:"size:71;not null"`
	Body           string `gorm:"type:text;not null"`
	Staged         bool   `gorm:"not null;default:false"` // written, not yet published by its commit (staging.go)
	CreatedAt      time.Time
}

// TableName names the table.
func (Batch) TableName() string { return "flylab_batches" }

// Analysis is a saved five-metric analysis of a batch.
type Analysis struct {
	ID        string `gorm:"primaryKey;size:100"`
	SessionID string `gorm:"size:40;not null;index"`
	BatchID   string `gorm:"size:100;not null;index"`
	Body      string `gorm:"type:text;not null"`
	CreatedAt time.Time
}

// TableName names the table.
func (Analysis) TableName() string { return "flylab_analyses" }

// Comparison is a saved ranking with its follow-up proposal.
type Comparison struct {
	ID        string `gorm:"primaryKey;size:100"`
	SessionID string `gorm:"size:40;not null;index"`
	Body      string `gorm:"type:text;not null"`
	CreatedAt time.Time
}

// TableName names the table.
func (Comparison) TableName() string { return "flylab_comparisons" }

// EvidenceBundle is one entry of the append-only evidence ledger: rows are
// inserted once and never updated or deleted.
type EvidenceBundle struct {
	ID           string `gorm:"primaryKey;size:100"`
	SessionID    string `gorm:"size:40;not null;index"`
	OperationKey string `gorm:"size:300;not null;uniqueIndex:idx_flylab_bundles_op"`
	ManifestHash string `gorm:"size:71;not null"`
	Export       string `gorm:"type:text;not null"`
	Staged       bool   `gorm:"not null;default:false"` // written, not yet published by its commit (staging.go)
	CreatedAt    time.Time
}

// TableName names the table.
func (EvidenceBundle) TableName() string { return "flylab_evidence_bundles" }
