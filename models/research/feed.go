package research

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
)

// FeedHandle is a voice registered on a project's feed.
type FeedHandle struct {
	ProjectID string `gorm:"primaryKey;size:64"`
	Handle    string `gorm:"primaryKey;size:64"`
	Role      string `gorm:"size:16;not null"`
	Bio       string `gorm:"size:1000;not null;default:''"`
	SessionID string `gorm:"size:128;not null;default:''"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName pins the table name.
func (FeedHandle) TableName() string { return "research_feed_handles" }

// FeedPost is one post; Seq orders a project's feed (stable, gapless per
// project). Thread is the root post's id; a root's Thread is its own id.
type FeedPost struct {
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

// TableName pins the table name.
func (FeedPost) TableName() string { return "research_feed_posts" }

// RegisterHandle creates a handle or updates its role and bio. With
// newVoice a handle that already exists is a conflict.
func RegisterHandle(ctx context.Context, db *gorm.DB, h FeedHandle, newVoice bool) (FeedHandle, bool, error) {
	var out FeedHandle
	created := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var cur FeedHandle
		err := tx.Where("project_id = ? AND handle = ?", h.ProjectID, h.Handle).Take(&cur).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			if err := tx.Create(&h).Error; err != nil {
				return errorf(CodeConflict, "handle %s was registered concurrently; retry", h.Handle)
			}
			out, created = h, true
			return nil
		case err != nil:
			return err
		case newVoice:
			return &Error{Code: CodeConflict, Field: "/handle", Message: "handle " + h.Handle + " is taken; pick another for a new voice"}
		}
		cur.Role, cur.Bio, cur.UpdatedAt = h.Role, h.Bio, time.Now().UTC()
		if h.SessionID != "" {
			cur.SessionID = h.SessionID
		}
		out = cur
		return tx.Model(&FeedHandle{}).Where("project_id = ? AND handle = ?", h.ProjectID, h.Handle).
			Updates(map[string]any{"role": cur.Role, "bio": cur.Bio, "session_id": cur.SessionID, "updated_at": cur.UpdatedAt}).Error
	})
	return out, created, err
}

// GetPost loads one post of a project.
func GetPost(ctx context.Context, db *gorm.DB, projectID, id, field string) (FeedPost, error) {
	var p FeedPost
	err := db.WithContext(ctx).Where("project_id = ? AND id = ?", projectID, id).Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return p, &Error{Code: CodeNotFound, Field: field, Message: "no post " + id + " in this project's feed"}
	}
	return p, err
}

// AppendPost gives p the project's next seq and stores it. A post replayed
// under the same idempotency key answers the stored post (replayed true);
// the same key with a different request is a conflict.
func AppendPost(ctx context.Context, db *gorm.DB, p FeedPost) (FeedPost, bool, error) {
	var out FeedPost
	replayed := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if p.IdempotencyKey != nil {
			var prev FeedPost
			e := tx.Where("project_id = ? AND idempotency_key = ?", p.ProjectID, *p.IdempotencyKey).Take(&prev).Error
			if e == nil {
				if prev.RequestHash != p.RequestHash {
					return &Error{Code: CodeConflict, Field: "/idempotency_key", Message: "this idempotency_key was used for a different post"}
				}
				out, replayed = prev, true
				return nil
			}
			if !errors.Is(e, gorm.ErrRecordNotFound) {
				return e
			}
		}
		var max int64
		if err := tx.Model(&FeedPost{}).Where("project_id = ?", p.ProjectID).Select("COALESCE(MAX(seq), 0)").Scan(&max).Error; err != nil {
			return err
		}
		p.Seq = max + 1
		if p.Thread == "" {
			p.Thread = p.ID
		}
		if err := tx.Create(&p).Error; err != nil {
			return errorf(CodeConflict, "another post took seq %d; retry", p.Seq)
		}
		out = p
		return nil
	})
	return out, replayed, err
}

// ListPosts returns up to limit posts newest first, before beforeSeq when
// it is positive, and the seq to pass for the next page (0 when none).
func ListPosts(ctx context.Context, db *gorm.DB, projectID string, limit int, beforeSeq int64) ([]FeedPost, int64, error) {
	q := db.WithContext(ctx).Where("project_id = ?", projectID).Order("seq DESC").Limit(limit + 1)
	if beforeSeq > 0 {
		q = q.Where("seq < ?", beforeSeq)
	}
	var ps []FeedPost
	if err := q.Find(&ps).Error; err != nil {
		return nil, 0, err
	}
	var next int64
	if len(ps) > limit {
		ps = ps[:limit]
		next = ps[limit-1].Seq
	}
	return ps, next, nil
}
