package research

import (
	"context"
	"strconv"
	"time"

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

// citationJSON is a citation as litreview.view and litreview.cite show
// it. Fields follow their keys' order. The reference sits under its
// kind's key: RefKind is one of url, doi and arxiv (normalizeReference
// writes no other), and arxiv shows as arxiv_id; the other two keys are
// absent.
type citationJSON struct {
	ArxivID   *string     `json:"arxiv_id,omitempty"`
	ID        string      `json:"citation_id"`
	CreatedAt time.Time   `json:"created_at"`
	DOI       *string     `json:"doi,omitempty"`
	Note      string      `json:"note"`
	Targets   []litTarget `json:"targets"`
	Title     string      `json:"title"`
	URL       *string     `json:"url,omitempty"`
}

func citationView(c models.Citation) citationJSON {
	var ts []litTarget
	_ = jsonUnmarshal(c.TargetsJSON, &ts)
	v := citationJSON{ID: c.ID, Title: c.Title, Note: c.Note, Targets: nonNil(ts), CreatedAt: c.CreatedAt}
	switch c.RefKind {
	case "arxiv":
		v.ArxivID = ptr(c.Ref)
	case "doi":
		v.DOI = ptr(c.Ref)
	case "url":
		v.URL = ptr(c.Ref)
	}
	return v
}
