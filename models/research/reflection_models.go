package research

import "time"

// Reflection mirrors a reflection wave's workflow for listing and holds
// what outlives it; the workflow research-reflection/<id> is the authority
// for Status, Gate and Attempt. OpenProject is the project id while the
// wave is open and NULL after, so a unique index allows one open wave per
// project.
type Reflection struct {
	ID                   string  `gorm:"primaryKey;size:64"`
	ProjectID            string  `gorm:"size:64;not null;index"`
	OpenProject          *string `gorm:"size:64;uniqueIndex:idx_research_reflections_open"`
	Title                string  `gorm:"size:200;not null;default:''"`
	Status               string  `gorm:"size:32;not null"`
	Gate                 string  `gorm:"size:64;not null;default:''"`
	NextAction           string  `gorm:"size:64;not null;default:''"`
	Attempt              int     `gorm:"not null;default:0"`
	Revision             int     `gorm:"not null;default:0"`
	LensesJSON           string  `gorm:"type:text;not null"`
	CorpusJSON           string  `gorm:"type:text;not null"`
	GraphArtifactID      string  `gorm:"size:64;not null;default:''"`
	DocArtifactID        string  `gorm:"size:64;not null;default:''"`
	ChangeSpecArtifactID string  `gorm:"size:64;not null;default:''"`
	PublishJSON          string  `gorm:"type:text;not null;default:''"`
	PublishedAt          *time.Time
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// TableName pins the table name.
func (Reflection) TableName() string { return "research_reflections" }

// ConsolidationProposal is one immutable proposal of a wave, one per
// proposal revision.
type ConsolidationProposal struct {
	ID             string `gorm:"primaryKey;size:64"`
	ProjectID      string `gorm:"size:64;not null;index"`
	ReflectionID   string `gorm:"size:64;not null;uniqueIndex:idx_research_proposals_rev,priority:1"`
	Revision       int    `gorm:"not null;uniqueIndex:idx_research_proposals_rev,priority:2"`
	BaseSHA        string `gorm:"size:64;not null"`
	ProposalSHA    string `gorm:"size:64;not null"`
	Summary        string `gorm:"type:text;not null"`
	ValidationJSON string `gorm:"type:text;not null;default:''"`
	DecisionsJSON  string `gorm:"type:text;not null"`
	CreatedBy      string `gorm:"size:64;not null;default:''"`
	CreatedAt      time.Time
}

// TableName pins the table name.
func (ConsolidationProposal) TableName() string { return "research_consolidation_proposals" }

// Central advance statuses.
const (
	AdvanceIntended = "intended"
	AdvanceBound    = "bound"
	AdvanceFailed   = "failed"
	AdvanceStale    = "stale"
)

// CentralAdvance is one attempt to move a project's central ref from a
// proposal's base to its sha, held by an owner lease while intended.
type CentralAdvance struct {
	ID             string `gorm:"primaryKey;size:96"`
	ProjectID      string `gorm:"size:64;not null;index"`
	ReflectionID   string `gorm:"size:64;not null;index"`
	Revision       int    `gorm:"not null"`
	Expected       string `gorm:"size:64;not null"`
	Target         string `gorm:"size:64;not null"`
	Observed       string `gorm:"size:64;not null;default:''"`
	Status         string `gorm:"size:16;not null"`
	Owner          string `gorm:"size:200;not null"`
	LeaseExpiresAt time.Time
	Error          string `gorm:"size:2000;not null;default:''"`
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// TableName pins the table name.
func (CentralAdvance) TableName() string { return "research_central_advances" }

// CentralRef is a project's central ref when kept as a database record.
type CentralRef struct {
	ProjectID string `gorm:"primaryKey;size:64"`
	SHA       string `gorm:"size:64;not null"`
	UpdatedAt time.Time
}

// TableName pins the table name.
func (CentralRef) TableName() string { return "research_central_refs" }

// reflectionTablesV2 lists the tables of 2026112940_research_reflection.
// These models are new in that migration; copy them into frozen V2 types
// before changing them.
func reflectionTablesV2() []any {
	return []any{&Reflection{}, &ConsolidationProposal{}, &CentralAdvance{}, &CentralRef{}}
}
