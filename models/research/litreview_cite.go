package research

import (
	"context"

	"gorm.io/gorm"
)

// CiteSource registers a citation of a source once per project, in one
// transaction. Among the citations of fresh's project that may name the
// source (kind, id) (CitationsMaybeNaming), the earliest for which names
// holds is the source's citation. Without one, fresh is stored as given
// (a store that fails, as when the same reference is cited concurrently,
// is a conflict). With one, merge answers the targets_json it stores with
// the new targets merged in, or an error that refuses the call with
// nothing written. It answers the citation as stored and whether the
// source was already cited.
func CiteSource(ctx context.Context, db *gorm.DB, fresh Citation, kind, id string, names func(Citation) bool,
	merge func(Citation) (string, error)) (Citation, bool, error) {
	var out Citation
	duplicate := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		cs, err := CitationsMaybeNaming(ctx, tx, fresh.ProjectID, kind, id)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if names(c) {
				targets, err := merge(c)
				if err != nil {
					return err
				}
				c.TargetsJSON = targets
				out, duplicate = c, true
				return tx.Model(&Citation{}).Where("id = ?", c.ID).Update("targets_json", targets).Error
			}
		}
		if err := tx.Create(&fresh).Error; err != nil {
			return &Error{Code: CodeConflict, Message: "the same paper was cited concurrently; retry"}
		}
		out = fresh
		return nil
	})
	return out, duplicate, err
}
