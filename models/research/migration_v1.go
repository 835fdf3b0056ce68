package research

import "time"

// The research tables as created by 2026112930_research_core. These frozen
// copies keep that migration's meaning when the models change later.

type projectV1 struct {
	ID          string `gorm:"primaryKey;size:64"`
	Name        string `gorm:"size:200;not null;uniqueIndex"`
	Description string `gorm:"size:4000;not null;default:''"`
	CreatedBy   string `gorm:"size:32;not null"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func (projectV1) TableName() string { return "research_projects" }

type experimentV1 struct {
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

func (experimentV1) TableName() string { return "research_experiments" }

type artifactV1 struct {
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

func (artifactV1) TableName() string { return "research_artifacts" }

type reviewRequestV1 struct {
	ID                string `gorm:"primaryKey;size:64"`
	ProjectID         string `gorm:"size:64;not null;index"`
	TargetType        string `gorm:"size:32;not null"`
	TargetID          string `gorm:"size:64;not null;index"`
	Kind              string `gorm:"size:32;not null"`
	Role              string `gorm:"size:64;not null"`
	Reason            string `gorm:"size:2000;not null;default:''"`
	ProducerSessionID string `gorm:"size:128;not null"`
	CapabilityHash    string `gorm:"size:64;not null;uniqueIndex"`
	SnapshotToken     string `gorm:"size:64;not null"`
	SnapshotJSON      string `gorm:"type:text;not null"`
	Status            string `gorm:"size:16;not null;index"`
	ExpiresAt         time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

func (reviewRequestV1) TableName() string { return "research_review_requests" }

type reviewSessionV1 struct {
	ID              string `gorm:"primaryKey;size:64"`
	RequestID       string `gorm:"size:64;not null;uniqueIndex"`
	CallerSessionID string `gorm:"size:128;not null"`
	DeclaredAgent   string `gorm:"size:200;not null;default:''"`
	Verdict         string `gorm:"size:32;not null;default:''"`
	ReturnTo        string `gorm:"size:32;not null;default:''"`
	Synopsis        string `gorm:"type:text;not null;default:''"`
	Notes           string `gorm:"type:text;not null;default:''"`
	SubmittedAt     *time.Time
	CreatedAt       time.Time
}

func (reviewSessionV1) TableName() string { return "research_review_sessions" }

type claimV1 struct {
	ID         string `gorm:"primaryKey;size:64"`
	ProjectID  string `gorm:"size:64;not null;index"`
	Statement  string `gorm:"size:4000;not null"`
	Scope      string `gorm:"size:2000;not null;default:''"`
	Confidence string `gorm:"size:16;not null"`
	Status     string `gorm:"size:32;not null"`
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

func (claimV1) TableName() string { return "research_claims" }

type candidateV1 struct {
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

func (candidateV1) TableName() string { return "research_candidates" }

type candidateStageV1 struct {
	ID             string `gorm:"primaryKey;size:64"`
	CandidateID    string `gorm:"size:64;not null;index"`
	StageKind      string `gorm:"size:32;not null"`
	StageRef       string `gorm:"size:1000;not null"`
	ContentSHA256  string `gorm:"size:64;not null;default:''"`
	ManifestSHA256 string `gorm:"size:64;not null;default:''"`
	CreatedAt      time.Time
}

func (candidateStageV1) TableName() string { return "research_candidate_stages" }

type promotionV1 struct {
	ID                 string `gorm:"primaryKey;size:64"`
	ProjectID          string `gorm:"size:64;not null;index"`
	Seq                int64  `gorm:"not null"`
	CandidateID        string `gorm:"size:64;not null"`
	PreviousChampionID string `gorm:"size:64;not null;default:''"`
	Reason             string `gorm:"size:2000;not null"`
	PromotedBy         string `gorm:"size:32;not null"`
	CreatedAt          time.Time
}

func (promotionV1) TableName() string { return "research_promotions" }

type championV1 struct {
	ProjectID   string `gorm:"primaryKey;size:64"`
	CandidateID string `gorm:"size:64;not null"`
	Seq         int64  `gorm:"not null"`
	UpdatedAt   time.Time
}

func (championV1) TableName() string { return "research_champions" }

// snapshotV1 lists the tables of 2026112930_research_core.
func snapshotV1() []any {
	return []any{&projectV1{}, &experimentV1{}, &artifactV1{}, &reviewRequestV1{}, &reviewSessionV1{}, &claimV1{}, &candidateV1{}, &candidateStageV1{}, &promotionV1{}, &championV1{}}
}
