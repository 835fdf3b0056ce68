package research

import (
	"context"

	"gorm.io/gorm"
)

// CitationsMaybeNaming lists the citations of project projectID whose
// reference may name the source (kind, id), where kind is "doi", "arxiv"
// or "url" as the api normalizes references, oldest first (created_at,
// then id); the caller keeps those that do name it. For a DOI source (id
// lowercased, as DOIs are stored) it lists the DOI citations of id and
// every URL citation holding "doi.org/" (a resolver link); for an arXiv
// source (id unversioned) the arXiv citations of any version of id (arXiv
// ids hold no LIKE wildcard) and every URL citation holding "arxiv.org/";
// for any other kind the URL citations of exactly id. A citation of
// another project is never listed.
func CitationsMaybeNaming(ctx context.Context, db *gorm.DB, projectID, kind, id string) ([]Citation, error) {
	q := db.WithContext(ctx).Where("project_id = ?", projectID)
	switch kind {
	case "doi":
		q = q.Where("(ref_kind = 'doi' AND ref = ?) OR (ref_kind = 'url' AND ref LIKE ?)", id, "%doi.org/%")
	case "arxiv":
		q = q.Where("(ref_kind = 'arxiv' AND ref LIKE ?) OR (ref_kind = 'url' AND ref LIKE ?)", id+"%", "%arxiv.org/%")
	default:
		q = q.Where("ref_kind = 'url' AND ref = ?", id)
	}
	var out []Citation
	err := q.Order("created_at, id").Find(&out).Error
	return out, err
}
