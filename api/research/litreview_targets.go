package research

import (
	"context"
	"strconv"

	models "github.com/gatehouse/gatehouse/models/research"
)

// checkTarget confirms a citation target exists in the project.
func (s *Service) checkTarget(ctx context.Context, projectID string, tg litTarget, pointer string) error {
	ok, err := models.CiteTargetExists(ctx, s.DB, projectID, tg.Type, tg.ID)
	if err != nil {
		return err
	}
	if !ok {
		return toolErr(CodeNotFound, pointer, "no %s %s in this project", tg.Type, tg.ID)
	}
	return nil
}

func containsTarget(list []litTarget, t litTarget) bool {
	for _, x := range list {
		if x == t {
			return true
		}
	}
	return false
}

func nonNil(ts []litTarget) []litTarget {
	if ts == nil {
		return []litTarget{}
	}
	return ts
}

func itoa(i int) string { return strconv.Itoa(i) }

func citationView(c models.Citation) map[string]any {
	var ts []litTarget
	_ = jsonUnmarshal(c.TargetsJSON, &ts)
	v := map[string]any{"citation_id": c.ID, c.RefKind: c.Ref, "title": c.Title, "note": c.Note, "targets": nonNil(ts), "created_at": c.CreatedAt}
	if c.RefKind == "arxiv" {
		delete(v, "arxiv")
		v["arxiv_id"] = c.Ref
	}
	return v
}
