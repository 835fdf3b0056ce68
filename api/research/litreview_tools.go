package research

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

// maxSectionBytes caps one section: a change is one section, not a document.
const maxSectionBytes = 8000

var (
	headingLine = regexp.MustCompile(`(?m)^#{1,6}\s`)
	doiPattern  = regexp.MustCompile(`^10\.\d{4,9}/[^\s"'<>]+$`)
	arxivNew    = regexp.MustCompile(`^\d{4}\.\d{4,5}(v\d+)?$`)
	arxivOld    = regexp.MustCompile(`^[a-z][a-z.-]+(\.[A-Z]{2})?/\d{7}(v\d+)?$`)
)

type litArgs struct {
	ProjectID      string      `json:"project_id"`
	Op             string      `json:"op"`
	SectionID      string      `json:"section_id"`
	Text           *string     `json:"text"`
	Position       *int        `json:"position"`
	IdempotencyKey string      `json:"idempotency_key"`
	URL            string      `json:"url"`
	DOI            string      `json:"doi"`
	ArxivID        string      `json:"arxiv_id"`
	Targets        []litTarget `json:"targets"`
	Note           string      `json:"note"`
	Title          string      `json:"title"`
}

type litTarget struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

func litreviewView(ctx context.Context, s *Service, c *Call) (any, error) {
	var in litArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	ss, rev, err := models.Sections(ctx, s.DB, in.ProjectID)
	if err != nil {
		return nil, err
	}
	cs, err := models.ProjectCitations(ctx, s.DB, in.ProjectID)
	if err != nil {
		return nil, err
	}
	sections := make([]litSectionJSON, 0, len(ss))
	var doc []string
	for _, sec := range ss {
		sections = append(sections, litSectionJSON{ID: sec.ID, Position: sec.Position, Text: sec.Text, UpdatedAt: sec.UpdatedAt})
		doc = append(doc, sec.Text)
	}
	cites := make([]citationJSON, 0, len(cs))
	for _, ci := range cs {
		cites = append(cites, citationView(ci))
	}
	return litreviewAnswer{Revision: rev, Sections: sections, Citations: cites, Markdown: strings.Join(doc, "\n\n")}, nil
}

func litreviewEdit(ctx context.Context, s *Service, c *Call) (any, error) {
	var in litArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	ch := models.LitChange{Op: in.Op, SectionID: in.SectionID, Position: in.Position, IdempotencyKey: in.IdempotencyKey, By: c.Principal.CredentialID}
	switch in.Op {
	case "add", "edit":
		if in.Text == nil || strings.TrimSpace(*in.Text) == "" {
			return nil, invalid("/text", in.Op+" needs the section's text")
		}
		if err := oneSection(*in.Text); err != nil {
			return nil, err
		}
		ch.Text = *in.Text
	default:
		if in.Text != nil {
			return nil, invalid("/text", in.Op+" takes no text; one change per call")
		}
	}
	switch in.Op {
	case "add":
		if in.SectionID != "" {
			return nil, invalid("/section_id", "add creates a new section; its id is returned")
		}
		ch.SectionID = models.NewID("sec_")
	default:
		if in.SectionID == "" {
			return nil, invalid("/section_id", in.Op+" needs section_id")
		}
	}
	if in.Op == "reorder" && in.Position == nil {
		return nil, invalid("/position", "reorder needs position")
	}
	if (in.Op == "edit" || in.Op == "delete") && in.Position != nil {
		return nil, invalid("/position", in.Op+" takes no position; one change per call")
	}
	edit, replayed, err := models.ApplyLitChange(ctx, s.DB, in.ProjectID, ch)
	if err != nil {
		return nil, err
	}
	return litEditAnswer{Op: edit.Op, SectionID: edit.SectionID, Revision: edit.Seq, Replayed: replayed}, nil
}

// oneSection refuses text that is a document rather than one section.
func oneSection(text string) error {
	if len(text) > maxSectionBytes {
		te := invalid("/text", "a change carries one section of at most 8000 bytes; a whole-document rewrite is refused — edit one section at a time")
		te.Reason = "whole_document_rewrite"
		return te
	}
	if n := len(headingLine.FindAllStringIndex(text, -1)); n > 1 {
		te := invalid("/text", "the text holds several section headings; a whole-document rewrite is refused — add or edit one section per call")
		te.Reason = "whole_document_rewrite"
		return te
	}
	return nil
}

func litreviewCite(ctx context.Context, s *Service, c *Call) (any, error) {
	var in litArgs
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if _, err := s.project(ctx, c, in.ProjectID); err != nil {
		return nil, err
	}
	kind, ref, err := normalizeReference(in.URL, in.DOI, in.ArxivID)
	if err != nil {
		return nil, err
	}
	seen := map[litTarget]bool{}
	for i, tg := range in.Targets {
		if seen[tg] {
			return nil, toolErr(CodeInvalidInput, "/targets/"+itoa(i), "target %s %s is listed twice", tg.Type, tg.ID)
		}
		seen[tg] = true
		if err := s.checkTarget(ctx, in.ProjectID, tg, "/targets/"+itoa(i)); err != nil {
			return nil, err
		}
	}
	// The same source cited in another form (a DOI's resolver link, an
	// arXiv id's abs/pdf link or another version) is a duplicate too.
	want := sourceOf(kind, ref)
	raw, _ := json.Marshal(nonNil(in.Targets))
	fresh := models.Citation{ID: models.NewID("cite_"), ProjectID: in.ProjectID, RefKind: kind, Ref: ref, Title: in.Title, Note: in.Note, TargetsJSON: string(raw)}
	out, duplicate, err := models.CiteSource(ctx, s.DB, fresh, want.Kind, want.ID,
		func(c models.Citation) bool { return sourceOf(c.RefKind, c.Ref) == want },
		func(cur models.Citation) (string, error) { return mergedTargets(cur, in.Targets) })
	if err != nil {
		return nil, err
	}
	return litCiteAnswer{Citation: citationView(out), Duplicate: duplicate}, nil
}

// mergedTargets is the targets_json of a citation already naming the
// cited source with the call's new targets appended; more than 20 targets
// refuse the call.
func mergedTargets(cur models.Citation, add []litTarget) (string, error) {
	var have []litTarget
	_ = json.Unmarshal([]byte(cur.TargetsJSON), &have)
	merged := have
	for _, tg := range add {
		if !containsTarget(have, tg) {
			merged = append(merged, tg)
		}
	}
	if len(merged) > 20 {
		return "", toolErr(CodeInvalidInput, "/targets", "a citation has at most 20 targets; it already has %d", len(have))
	}
	raw, _ := json.Marshal(nonNil(merged))
	return string(raw), nil
}

// normalizeReference checks that exactly one reference is given and returns
// its kind and canonical form (DOIs and hosts lowercased, arXiv versions kept).
func normalizeReference(rawURL, doi, arxiv string) (string, string, error) {
	n := 0
	for _, v := range []string{rawURL, doi, arxiv} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return "", "", invalid("/url", "give exactly one of url, doi, arxiv_id")
	}
	switch {
	case rawURL != "":
		u, err := url.Parse(strings.TrimSpace(rawURL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return "", "", invalid("/url", "url must be an absolute http(s) URL")
		}
		u.Scheme, u.Host, u.Fragment = strings.ToLower(u.Scheme), strings.ToLower(u.Host), ""
		return "url", u.String(), nil
	case doi != "":
		d := strings.TrimSpace(doi)
		for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:"} {
			d = strings.TrimPrefix(d, p)
		}
		if !doiPattern.MatchString(d) {
			return "", "", invalid("/doi", "doi must look like 10.1234/suffix")
		}
		return "doi", strings.ToLower(d), nil
	default:
		a := strings.TrimPrefix(strings.TrimSpace(arxiv), "arXiv:")
		if !arxivNew.MatchString(a) && !arxivOld.MatchString(a) {
			return "", "", invalid("/arxiv_id", "arxiv_id must look like 2401.01234 (optionally v2) or hep-th/9901001")
		}
		return "arxiv", a, nil
	}
}

// The literature review tools' answers. Fields are in the order of their
// JSON keys, as the maps they replaced encoded them.
type (
	// litSectionJSON is a section as litreview.view shows it.
	litSectionJSON struct {
		Position  int       `json:"position"`
		ID        string    `json:"section_id"`
		Text      string    `json:"text"`
		UpdatedAt time.Time `json:"updated_at"`
	}
	// litreviewAnswer is litreview.view's answer.
	litreviewAnswer struct {
		Citations []citationJSON   `json:"citations"`
		Markdown  string           `json:"markdown"`
		Revision  int64            `json:"revision"`
		Sections  []litSectionJSON `json:"sections"`
	}
	// litEditAnswer is litreview.edit's answer.
	litEditAnswer struct {
		Op        string `json:"op"`
		Replayed  bool   `json:"replayed"`
		Revision  int64  `json:"revision"`
		SectionID string `json:"section_id"`
	}
	// litCiteAnswer is litreview.cite's answer.
	litCiteAnswer struct {
		Citation  citationJSON `json:"citation"`
		Duplicate bool         `json:"duplicate"`
	}
)
