package research

import (
	"context"

	"gorm.io/gorm"
)

// UpdateProject sets the columns of up on project p, both in the database
// (the row with p's id, and no other) and in p, which then reads as
// stored.
func UpdateProject(ctx context.Context, db *gorm.DB, p *Project, up map[string]any) error {
	return db.WithContext(ctx).Model(p).Updates(up).Error
}
