package research

import (
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/migrate"
)

// StorageFeedMigration creates the storage, literature review, feed and
// MLflow tables from frozen copies of their models as of this version.
func StorageFeedMigration() migrate.Migration {
	return migrate.Migration{ID: "2026112950_research_storage_feed", Up: func(tx *gorm.DB) error {
		for _, m := range []any{&storageObjectV2{}, &storageTokenV2{}, &litSectionV2{}, &litEditV2{}, &citationV2{}, &feedHandleV2{}, &feedPostV2{}, &mlflowRunV2{}} {
			if err := tx.Migrator().CreateTable(m); err != nil {
				return err
			}
		}
		return nil
	}}
}

type storageObjectV2 struct {
	ID                    string `gorm:"primaryKey;size:64"`
	ProjectID             string `gorm:"size:64;not null;uniqueIndex:idx_research_storage_version,priority:1;index"`
	Name                  string `gorm:"size:200;not null;uniqueIndex:idx_research_storage_version,priority:2"`
	Version               int    `gorm:"not null;uniqueIndex:idx_research_storage_version,priority:3"`
	Kind                  string `gorm:"size:16;not null"`
	Path                  string `gorm:"size:1024;not null"`
	ContentType           string `gorm:"size:200;not null;default:''"`
	SHA256                string `gorm:"size:64;not null;index"`
	SizeBytes             int64  `gorm:"not null"`
	Status                string `gorm:"size:16;not null;index"`
	Pinned                bool   `gorm:"not null;default:false"`
	ProducingExperimentID string `gorm:"size:64;not null;default:''"`
	ProducingRun          string `gorm:"size:200;not null;default:''"`
	SourceURI             string `gorm:"size:2000;not null;default:''"`
	Notes                 string `gorm:"size:4000;not null;default:''"`
	BlobKey               string `gorm:"size:512;not null;index"`
	UploadTokenHash       string `gorm:"size:64;not null;default:'';index"`
	UploadExpiresAt       *time.Time
	LastError             string `gorm:"size:2000;not null;default:''"`
	ExpiresAt             *time.Time
	CompletedAt           *time.Time
	DeletedAt             *time.Time `gorm:"column:deleted_at"`
	CreatedBy             string     `gorm:"size:32;not null"`
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

func (storageObjectV2) TableName() string { return "research_storage_objects" }

type storageTokenV2 struct {
	TokenHash string `gorm:"primaryKey;size:64"`
	ObjectID  string `gorm:"size:64;not null;index"`
	ExpiresAt time.Time
	CreatedAt time.Time
}

func (storageTokenV2) TableName() string { return "research_storage_tokens" }

type litSectionV2 struct {
	ID        string `gorm:"primaryKey;size:64"`
	ProjectID string `gorm:"size:64;not null;index"`
	Position  int    `gorm:"not null"`
	Text      string `gorm:"type:text;not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (litSectionV2) TableName() string { return "research_lit_sections" }

type litEditV2 struct {
	ID             string  `gorm:"primaryKey;size:64"`
	ProjectID      string  `gorm:"size:64;not null;uniqueIndex:idx_research_lit_edits_seq,priority:1;uniqueIndex:idx_research_lit_edits_key,priority:1"`
	Seq            int64   `gorm:"not null;uniqueIndex:idx_research_lit_edits_seq,priority:2"`
	Op             string  `gorm:"size:16;not null"`
	SectionID      string  `gorm:"size:64;not null"`
	IdempotencyKey *string `gorm:"size:200;uniqueIndex:idx_research_lit_edits_key,priority:2"`
	By             string  `gorm:"size:32;not null"`
	CreatedAt      time.Time
}

func (litEditV2) TableName() string { return "research_lit_edits" }

type citationV2 struct {
	ID          string `gorm:"primaryKey;size:64"`
	ProjectID   string `gorm:"size:64;not null;uniqueIndex:idx_research_citations_ref,priority:1"`
	RefKind     string `gorm:"size:16;not null;uniqueIndex:idx_research_citations_ref,priority:2"`
	Ref         string `gorm:"size:1000;not null;uniqueIndex:idx_research_citations_ref,priority:3"`
	Title       string `gorm:"size:400;not null;default:''"`
	Note        string `gorm:"size:4000;not null;default:''"`
	TargetsJSON string `gorm:"type:text;not null"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func (citationV2) TableName() string { return "research_citations" }

type feedHandleV2 struct {
	ProjectID string `gorm:"primaryKey;size:64"`
	Handle    string `gorm:"primaryKey;size:64"`
	Role      string `gorm:"size:16;not null"`
	Bio       string `gorm:"size:1000;not null;default:''"`
	SessionID string `gorm:"size:128;not null;default:''"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

func (feedHandleV2) TableName() string { return "research_feed_handles" }

type feedPostV2 struct {
	ID              string  `gorm:"primaryKey;size:64"`
	ProjectID       string  `gorm:"size:64;not null;uniqueIndex:idx_research_feed_seq,priority:1;uniqueIndex:idx_research_feed_key,priority:1"`
	Seq             int64   `gorm:"not null;uniqueIndex:idx_research_feed_seq,priority:2"`
	Handle          string  `gorm:"size:64;not null"`
	Kind            string  `gorm:"size:16;not null"`
	Text            string  `gorm:"type:text;not null"`
	AttachmentsJSON string  `gorm:"type:text;not null"`
	Thread          string  `gorm:"size:64;not null;index"`
	InReplyTo       string  `gorm:"size:64;not null;default:''"`
	QuoteOf         string  `gorm:"size:64;not null;default:''"`
	IdempotencyKey  *string `gorm:"size:200;uniqueIndex:idx_research_feed_key,priority:2"`
	RequestHash     string  `gorm:"size:64;not null;default:''"`
	CreatedAt       time.Time
}

func (feedPostV2) TableName() string { return "research_feed_posts" }

type mlflowRunV2 struct {
	ExperimentID       string `gorm:"primaryKey;size:64"`
	ProjectID          string `gorm:"size:64;not null;index"`
	MLflowExperimentID string `gorm:"size:64;not null"`
	RunID              string `gorm:"size:64;not null"`
	FinishedAt         *time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

func (mlflowRunV2) TableName() string { return "research_mlflow_runs" }
