// Package flywheel holds the flywheel domain's records: production turns,
// rollouts (the claim queue and their fenced leases), the lease history,
// accepted outputs and the LLM gateway's call log.
//
// Authority. Temporal's rollout workflow is the authority for a rollout's
// lifecycle: when a lease is revoked, how many attempts remain, when the
// deadline ends it, and its terminal status (written here by activities).
// This database is the authority for three things a workflow cannot answer
// fast enough: which claimer holds a lease (the claim is a row lock with a
// fencing token), whether a heartbeat landed before the lease expired (a
// compare-and-swap on the row), and whether an output was accepted (a
// compare-and-swap that admits exactly one). The workflow learns of each
// through a signal and, should a signal be lost, reads the row back.
package flywheel

import "time"

// Rollout statuses as stored. queued and leased are mirrored from the
// workflow's lifecycle; completed and excluded are terminal.
const (
	StatusQueued    = "queued"
	StatusLeased    = "leased"
	StatusCompleted = "completed"
	StatusExcluded  = "excluded"
)

// Turn is one production turn from POST /flywheel/turns, keyed by
// (owner, agent_id, turn_id): the owner is the posting key's (KeyOwner),
// so no key can pre-empt another's turn id. ToolCalls keeps the exact JSON
// received: nil means the field was null (not reported), "[]" means
// observed zero calls. BodySHA256 digests the turn as received (canonical
// JSON), so a different body under a reused turn id is told apart from a
// replay.
type Turn struct {
	Owner                 string  `gorm:"primaryKey;size:300"`
	AgentID               string  `gorm:"primaryKey;size:255"`
	TurnID                string  `gorm:"primaryKey;size:255"`
	TaskID                *string `gorm:"size:255"`
	ConversationID        *string `gorm:"size:255"`
	TurnIndex             *int64
	InputText             *string
	FinalText             *string
	ToolCalls             *string
	ToolCallsOmittedCount int64 `gorm:"not null"`
	AgentFingerprint      *string
	// ToolCallLanded is the tri-state of each tool call's outcome as a
	// JSON array (ok → true, failed → false, unknown → null); NULL when
	// tool_calls is null.
	ToolCallLanded *string
	OccurredAt     *string `gorm:"size:64"`
	CredentialID   string  `gorm:"size:32;not null"`
	BodySHA256     string  `gorm:"size:64;not null;default:''"`
	ReceivedAt     time.Time
}

// TableName pins the table name.
func (Turn) TableName() string { return "flywheel_turns" }

// Rollout is one rollout: the claim-queue row, its current fenced lease and
// its terminal state. Secrets (lease token, api key, LLM gateway token) are
// stored as SHA-256 hashes only. Its indexes are the migrations' (on
// PostgreSQL, migrateQueueIndexes).
type Rollout struct {
	ID         string  `gorm:"primaryKey;size:40"`
	EnqueueKey *string `gorm:"size:300;uniqueIndex"`
	// Owner says which agent keys may claim it (see Claimant.MayTake).
	Owner       string  `gorm:"size:300;not null;default:''"`
	Status      string  `gorm:"size:16;not null"`
	TurnInput   string  `gorm:"not null"`
	TaskID      *string `gorm:"size:255"`
	Metadata    *string
	SourceAgent *string   `gorm:"size:255"`
	SourceTurn  *string   `gorm:"size:255"`
	DeadlineAt  time.Time `gorm:"not null"`
	MaxAttempts int       `gorm:"not null"`
	// LeaseEpoch counts leases granted: it is the fencing epoch. The token
	// changes with every lease.
	LeaseEpoch int64 `gorm:"not null;default:0"`
	// LeasesUndelivered counts grants returned to the queue because the
	// workflow could not be told (they never reached an agent): attempts
	// are LeaseEpoch - LeasesUndelivered, so a Temporal outage burns none.
	LeasesUndelivered int64   `gorm:"not null;default:0"`
	LeaseTokenHash    string  `gorm:"size:64;not null;default:''"`
	APIKeyHash        string  `gorm:"size:64;not null;default:''"`
	LLMTokenHash      string  `gorm:"size:64;not null;default:''"`
	LeaseSeconds      float64 `gorm:"not null;default:0"`
	LeaseExpiresAt    *time.Time
	// LeaseHeartbeats counts the heartbeats that landed on the current lease.
	LeaseHeartbeats int64 `gorm:"not null;default:0"`
	// LeaseGrantedAt and LeaseGrantedExpiry are the current (or last)
	// lease's grant as its history row has it, so a heartbeat returns them
	// without reading the history; nil for a lease granted by a version
	// that did not write them.
	LeaseGrantedAt     *time.Time
	LeaseGrantedExpiry *time.Time
	OutputAt           *time.Time
	ExclusionReason    *string `gorm:"size:40"`
	ExclusionDetail    *string
	// LLMCallsObserved is the gateway's count of accepted completions of
	// the current lease (reset with every grant); an output is reconciled
	// against the count of the lease it was accepted under.
	LLMCallsObserved int64 `gorm:"not null;default:0"`
	CreatedAt        time.Time
	UpdatedAt        time.Time
	FinishedAt       *time.Time
}

// TableName pins the table name.
func (Rollout) TableName() string { return "flywheel_rollouts" }

// Lease is one lease of the lease history, keyed by (rollout, epoch). Its
// api key hash stays after the lease ends so a stale holder is told 409
// (fenced) rather than 401.
type Lease struct {
	RolloutID  string `gorm:"primaryKey;size:40"`
	Epoch      int64  `gorm:"primaryKey"`
	APIKeyHash string `gorm:"size:64;not null"`
	ClaimedBy  string `gorm:"size:32;not null"`
	GrantedAt  time.Time
	ExpiresAt  time.Time
	Heartbeats int64 `gorm:"not null;default:0"`
	EndedAt    *time.Time
	EndReason  *string `gorm:"size:40"`
	// LLMTokenHash is this lease's llm_url token, kept after the lease
	// ends so its llm_url answers 410 (ended) rather than 404.
	LLMTokenHash string `gorm:"size:64;not null;default:''"`
	// LLMCalls counts the accepted completions made through this lease's
	// llm_url: the gateway's count is per lease epoch.
	LLMCalls int64 `gorm:"not null;default:0"`
	// Locator ends the lease's api key and LLM token (locator.go); ''
	// for leases granted before locators, found by hash through the
	// partial indexes of migrateLocatedSecrets.
	Locator string `gorm:"size:40;not null;default:''"`
}

// TableName pins the table name.
func (Lease) TableName() string { return "flywheel_leases" }

// Output is the one accepted RolloutOutput of a rollout. JSON-valued fields
// keep the exact bytes received (ToolCalls nil = not reported, "[]" = zero).
// AgentFingerprint is the customer's attestation and is kept apart from
// anything the gateway derives (GatewayCall).
type Output struct {
	RolloutID             string `gorm:"primaryKey;size:40"`
	Epoch                 int64  `gorm:"not null"`
	BodySHA256            string `gorm:"size:64;not null"`
	FinalText             string `gorm:"not null"`
	ToolCalls             *string
	ToolCallsOmittedCount int64 `gorm:"not null"`
	LLMCallCount          *int64
	Artifacts             *string
	Reward                *float64
	Success               *bool
	ExclusionReason       *string `gorm:"size:40"`
	ExclusionDetail       *string
	Events                *string
	Timing                *string
	AgentFingerprint      *string
	// ToolCallLanded: as Turn.ToolCallLanded.
	ToolCallLanded *string
	ReceivedAt     time.Time
}

// TableName pins the table name.
func (Output) TableName() string { return "flywheel_outputs" }

// GatewayCall is one request proxied by the LLM gateway, keyed by a call id
// minted when the request arrived. The request digest, model, rendered-
// prompt digest, tool-schema digest and sampling parameters are the
// server-derived half of the scaffold identity; ToolResultIDs (the
// tool_call_ids of the request's role "tool" messages) and
// EmittedToolCallIDs (those the completion's response named) are the join
// from a reported tool call to the completion that emitted it. JSON lists
// are stored as text; NULL means not observed.
type GatewayCall struct {
	ID            string `gorm:"primaryKey;size:40"`
	RolloutID     string `gorm:"size:40;not null;index"`
	Epoch         int64  `gorm:"not null"`
	Endpoint      string `gorm:"size:40;not null"`
	Completion    bool   `gorm:"not null"`
	Model         string `gorm:"size:200;not null;default:''"`
	RequestSHA256 string `gorm:"size:64;not null"`
	Stream        bool   `gorm:"not null"`
	Status        int    `gorm:"not null"`
	StartedAt     time.Time
	DurationMS    float64
	// PromptSHA256 digests the canonical messages (or prompt, or input).
	PromptSHA256 string `gorm:"size:64;not null;default:''"`
	// ToolsSHA256 digests the canonical tool schemas (tools or functions).
	ToolsSHA256        string `gorm:"size:64;not null;default:''"`
	Sampling           *string
	ToolResultIDs      *string
	EmittedToolCallIDs *string
}

// TableName pins the table name.
func (GatewayCall) TableName() string { return "flywheel_gateway_calls" }
