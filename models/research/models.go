package research

import "time"

// Project is a research project.
type Project struct {
	ID          string `gorm:"primaryKey;size:64" json:"id"`
	Name        string `gorm:"size:200;not null;uniqueIndex" json:"name"`
	Description string `gorm:"size:4000;not null;default:''" json:"description"`
	// HumanReviews lists, comma-separated, the review kinds an operator
	// marked as human: only an operator answers them.
	HumanReviews string    `gorm:"size:200;not null;default:''" json:"human_reviews"`
	CreatedBy    string    `gorm:"size:32;not null" json:"created_by"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// TableName pins the table name.
func (Project) TableName() string { return "research_projects" }

// Experiment mirrors an experiment workflow for listing; the workflow
// research-experiment/<id> is the authority for Status, Gate and Attempt.
type Experiment struct {
	ID         string `gorm:"primaryKey;size:64"`
	ProjectID  string `gorm:"size:64;not null;uniqueIndex:idx_research_experiments_name,priority:1;index"`
	Name       string `gorm:"size:48;not null;uniqueIndex:idx_research_experiments_name,priority:2"`
	Intent     string `gorm:"size:400;not null;default:''"`
	PlanJSON   string `gorm:"type:text;not null;default:''"`
	Status     string `gorm:"size:32;not null"`
	Gate       string `gorm:"size:64;not null;default:''"`
	NextAction string `gorm:"size:64;not null;default:''"`
	Attempt    int    `gorm:"not null;default:0"`
	Revision   int    `gorm:"not null;default:0"`
	Conclusion string `gorm:"type:text;not null;default:''"`
	FinishedAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// TableName pins the table name.
func (Experiment) TableName() string { return "research_experiments" }

// Artifact is a file an agent submitted; it is evidence only once its
// bytes landed (UploadedAt set, SHA256 and Size recorded).
type Artifact struct {
	ID              string `gorm:"primaryKey;size:64"`
	ProjectID       string `gorm:"size:64;not null;index"`
	TargetType      string `gorm:"size:32;not null"`
	TargetID        string `gorm:"size:64;not null;index"`
	Role            string `gorm:"size:64;not null"`
	LensID          string `gorm:"size:64;not null;default:''"`
	Path            string `gorm:"size:512;not null"`
	Title           string `gorm:"size:400;not null;default:''"`
	Attempt         int    `gorm:"not null;default:0"`
	UploadTokenHash string `gorm:"size:64;not null;uniqueIndex"`
	UploadExpiresAt time.Time
	BlobKey         string `gorm:"size:512;not null"`
	SHA256          string `gorm:"size:64;not null;default:''"`
	Size            int64  `gorm:"not null;default:0"`
	Valid           bool   `gorm:"not null;default:false"`
	Problems        string `gorm:"type:text;not null;default:''"`
	UploadedAt      *time.Time
	CreatedAt       time.Time
}

// TableName pins the table name.
func (Artifact) TableName() string { return "research_artifacts" }

// Review request statuses.
const (
	ReviewRequested  = "requested"
	ReviewStarted    = "started"
	ReviewSubmitted  = "submitted"
	ReviewSuperseded = "superseded"
)

// RoleHuman is the review role only an operator answers.
const RoleHuman = "human"

// ReviewRequest is a request for a reviewer; its capability is stored hashed.
type ReviewRequest struct {
	ID                string `gorm:"primaryKey;size:64"`
	ProjectID         string `gorm:"size:64;not null;index"`
	TargetType        string `gorm:"size:32;not null"`
	TargetID          string `gorm:"size:64;not null;index"`
	Kind              string `gorm:"size:32;not null"`
	Role              string `gorm:"size:64;not null"`
	Reason            string `gorm:"size:2000;not null;default:''"`
	ProducerSessionID string `gorm:"size:128;not null"`
	// ProducerCredential is the credential that requested the review; it
	// may not review its own target.
	ProducerCredential string `gorm:"size:64;not null;default:''"`
	CapabilityHash     string `gorm:"size:64;not null;uniqueIndex"`
	SnapshotToken      string `gorm:"size:64;not null"`
	SnapshotJSON       string `gorm:"type:text;not null"`
	Status             string `gorm:"size:16;not null;index"`
	ExpiresAt          time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// TableName pins the table name.
func (ReviewRequest) TableName() string { return "research_review_requests" }

// ReviewSession is a reviewer's session opened by review.start; its verdict
// is recorded once.
type ReviewSession struct {
	ID              string `gorm:"primaryKey;size:64"`
	RequestID       string `gorm:"size:64;not null;uniqueIndex"`
	CallerSessionID string `gorm:"size:128;not null"`
	DeclaredAgent   string `gorm:"size:200;not null;default:''"`
	// OpenedByCredential and OpenedByRole name the credential that opened
	// the session: only it may submit the verdict, and a human review's
	// session is an operator's.
	OpenedByCredential string `gorm:"size:64;not null;default:''"`
	OpenedByRole       string `gorm:"size:16;not null;default:''"`
	Verdict            string `gorm:"size:32;not null;default:''"`
	ReturnTo           string `gorm:"size:32;not null;default:''"`
	Synopsis           string `gorm:"type:text;not null;default:''"`
	Notes              string `gorm:"type:text;not null;default:''"`
	// FindingsJSON and EvidenceJSON keep review.submit's findings and evidence.
	FindingsJSON string `gorm:"type:text;not null;default:''"`
	EvidenceJSON string `gorm:"type:text;not null;default:''"`
	SubmittedAt  *time.Time
	CreatedAt    time.Time
}

// TableName pins the table name.
func (ReviewSession) TableName() string { return "research_review_sessions" }

// Claim is a statement the project believes with some confidence.
type Claim struct {
	ID         string    `gorm:"primaryKey;size:64" json:"claim_id"`
	ProjectID  string    `gorm:"size:64;not null;index" json:"project_id"`
	Statement  string    `gorm:"size:4000;not null" json:"statement"`
	Scope      string    `gorm:"size:2000;not null;default:''" json:"scope"`
	Confidence string    `gorm:"size:16;not null" json:"confidence"`
	Status     string    `gorm:"size:32;not null" json:"status"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// TableName pins the table name.
func (Claim) TableName() string { return "research_claims" }

// Candidate is a submitted model or artifact competing for champion.
type Candidate struct {
	ID                string `gorm:"primaryKey;size:64"`
	ProjectID         string `gorm:"size:64;not null;uniqueIndex:idx_research_candidates_key,priority:1;index"`
	IdempotencyKey    string `gorm:"size:200;not null;uniqueIndex:idx_research_candidates_key,priority:2"`
	RequestHash       string `gorm:"size:64;not null"`
	Name              string `gorm:"size:200;not null"`
	SourceKind        string `gorm:"size:32;not null"`
	SourceRef         string `gorm:"size:1000;not null"`
	MetricsJSON       string `gorm:"type:text;not null"`
	PrimaryMetric     string `gorm:"size:200;not null"`
	ValidationSummary string `gorm:"type:text;not null"`
	ExpectedSHA256    string `gorm:"size:64;not null;default:''"`
	HigherIsBetter    bool   `gorm:"not null"`
	CreatedAt         time.Time
}

// TableName pins the table name.
func (Candidate) TableName() string { return "research_candidates" }

// CandidateStage records one staging of a candidate.
type CandidateStage struct {
	ID             string `gorm:"primaryKey;size:64"`
	CandidateID    string `gorm:"size:64;not null;index"`
	StageKind      string `gorm:"size:32;not null"`
	StageRef       string `gorm:"size:1000;not null"`
	ContentSHA256  string `gorm:"size:64;not null;default:''"`
	ManifestSHA256 string `gorm:"size:64;not null;default:''"`
	CreatedAt      time.Time
}

// TableName pins the table name.
func (CandidateStage) TableName() string { return "research_candidate_stages" }

// Promotion is one append-only promotion event; the newest names the champion.
type Promotion struct {
	ID                 string `gorm:"primaryKey;size:64"`
	ProjectID          string `gorm:"size:64;not null;index"`
	Seq                int64  `gorm:"not null"`
	CandidateID        string `gorm:"size:64;not null"`
	PreviousChampionID string `gorm:"size:64;not null;default:''"`
	Reason             string `gorm:"size:2000;not null"`
	PromotedBy         string `gorm:"size:32;not null"`
	CreatedAt          time.Time
}

// TableName pins the table name.
func (Promotion) TableName() string { return "research_promotions" }

// Champion is the compare-and-swap cell of a project's champion; it always
// equals the target of the newest Promotion.
type Champion struct {
	ProjectID   string `gorm:"primaryKey;size:64"`
	CandidateID string `gorm:"size:64;not null"`
	Seq         int64  `gorm:"not null"`
	UpdatedAt   time.Time
}

// TableName pins the table name.
func (Champion) TableName() string { return "research_champions" }
