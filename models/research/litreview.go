package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// LitSection is one section of a project's living literature review.
type LitSection struct {
	ID        string `gorm:"primaryKey;size:64"`
	ProjectID string `gorm:"size:64;not null;index"`
	Position  int    `gorm:"not null"`
	Text      string `gorm:"type:text;not null"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName pins the table name.
func (LitSection) TableName() string { return "research_lit_sections" }

// LitEdit is one applied change; its Seq is the review's revision after it.
// IdempotencyKey (optional) makes a retried change apply once.
type LitEdit struct {
	ID             string  `gorm:"primaryKey;size:64"`
	ProjectID      string  `gorm:"size:64;not null;uniqueIndex:idx_research_lit_edits_seq,priority:1;uniqueIndex:idx_research_lit_edits_key,priority:1"`
	Seq            int64   `gorm:"not null;uniqueIndex:idx_research_lit_edits_seq,priority:2"`
	Op             string  `gorm:"size:16;not null"`
	SectionID      string  `gorm:"size:64;not null"`
	IdempotencyKey *string `gorm:"size:200;uniqueIndex:idx_research_lit_edits_key,priority:2"`
	By             string  `gorm:"size:32;not null"`
	CreatedAt      time.Time
}

// TableName pins the table name.
func (LitEdit) TableName() string { return "research_lit_edits" }

// Citation is a registered paper, unique per project by its normalized
// reference (kind + ref).
type Citation struct {
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

// TableName pins the table name.
func (Citation) TableName() string { return "research_citations" }

// LitChange is one targeted change to the review.
type LitChange struct {
	Op             string // add, edit, delete, reorder
	SectionID      string // edit, delete, reorder; the new id for add
	Text           string // add, edit
	Position       *int   // add (default: end), reorder
	IdempotencyKey string
	By             string
}

// Sections returns a project's sections in order and its revision.
func Sections(ctx context.Context, db *gorm.DB, projectID string) ([]LitSection, int64, error) {
	var ss []LitSection
	if err := db.WithContext(ctx).Where("project_id = ?", projectID).Order("position, id").Find(&ss).Error; err != nil {
		return nil, 0, err
	}
	var rev int64
	err := db.WithContext(ctx).Model(&LitEdit{}).Where("project_id = ?", projectID).Select("COALESCE(MAX(seq), 0)").Scan(&rev).Error
	return ss, rev, err
}

// ApplyLitChange applies exactly one change in one transaction and records
// it; a change replayed under the same idempotency key applies nothing and
// answers the original edit (replayed true).
func ApplyLitChange(ctx context.Context, db *gorm.DB, projectID string, ch LitChange) (edit LitEdit, replayed bool, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if ch.IdempotencyKey != "" {
			var prev LitEdit
			e := tx.Where("project_id = ? AND idempotency_key = ?", projectID, ch.IdempotencyKey).Take(&prev).Error
			if e == nil {
				if prev.Op != ch.Op {
					return &Error{Code: CodeConflict, Field: "/idempotency_key", Message: "this idempotency_key was used for a different change"}
				}
				edit, replayed = prev, true
				return nil
			}
			if !errors.Is(e, gorm.ErrRecordNotFound) {
				return e
			}
		}
		var ss []LitSection
		if err := tx.Where("project_id = ?", projectID).Order("position, id").Find(&ss).Error; err != nil {
			return err
		}
		idx := -1
		for i, s := range ss {
			if s.ID == ch.SectionID {
				idx = i
			}
		}
		if ch.Op != "add" && idx < 0 {
			return &Error{Code: CodeNotFound, Field: "/section_id", Message: "no section " + ch.SectionID + " in this literature review"}
		}
		now := time.Now().UTC()
		switch ch.Op {
		case "add":
			pos := len(ss)
			if ch.Position != nil && *ch.Position < pos {
				pos = *ch.Position
			}
			ss = append(ss[:pos], append([]LitSection{{ID: ch.SectionID, ProjectID: projectID, Text: ch.Text}}, ss[pos:]...)...)
			if err := tx.Create(&LitSection{ID: ch.SectionID, ProjectID: projectID, Position: pos, Text: ch.Text}).Error; err != nil {
				return err
			}
		case "edit":
			if err := tx.Model(&LitSection{}).Where("id = ?", ch.SectionID).Updates(map[string]any{"text": ch.Text, "updated_at": now}).Error; err != nil {
				return err
			}
		case "delete":
			if err := tx.Where("id = ?", ch.SectionID).Delete(&LitSection{}).Error; err != nil {
				return err
			}
			ss = append(ss[:idx], ss[idx+1:]...)
		case "reorder":
			if ch.Position == nil || *ch.Position >= len(ss) {
				return &Error{Code: CodeInvalid, Field: "/position", Message: "reorder needs a position within the review"}
			}
			moved := ss[idx]
			ss = append(ss[:idx], ss[idx+1:]...)
			ss = append(ss[:*ch.Position], append([]LitSection{moved}, ss[*ch.Position:]...)...)
		default:
			return &Error{Code: CodeInvalid, Field: "/op", Message: "unknown change " + ch.Op}
		}
		if ch.Op != "edit" {
			for i, s := range ss {
				if err := tx.Model(&LitSection{}).Where("id = ?", s.ID).Update("position", i).Error; err != nil {
					return err
				}
			}
		}
		var rev int64
		if err := tx.Model(&LitEdit{}).Where("project_id = ?", projectID).Select("COALESCE(MAX(seq), 0)").Scan(&rev).Error; err != nil {
			return err
		}
		edit = LitEdit{ID: NewID("le_"), ProjectID: projectID, Seq: rev + 1, Op: ch.Op, SectionID: ch.SectionID, By: ch.By}
		if ch.IdempotencyKey != "" {
			k := ch.IdempotencyKey
			edit.IdempotencyKey = &k
		}
		if err := tx.Create(&edit).Error; err != nil {
			return errorf(CodeConflict, "another change to the literature review landed first; retry")
		}
		return nil
	})
	return edit, replayed, err
}
