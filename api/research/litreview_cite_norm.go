package research

import (
	"net/url"
	"regexp"
	"strings"
)

// arxivVersion is the trailing version of an arXiv id (2401.01234v2).
var arxivVersion = regexp.MustCompile(`v\d+$`)

// doiHosts are the DOI resolvers whose links name a DOI.
var doiHosts = map[string]bool{"doi.org": true, "dx.doi.org": true, "www.doi.org": true}

// arxivHosts are the arXiv hosts whose abs/pdf links name a paper.
var arxivHosts = map[string]bool{"arxiv.org": true, "www.arxiv.org": true, "export.arxiv.org": true}

// citeSource is the source a stored or requested reference names, the key
// on which litreview.cite detects duplicates across forms: a DOI resolver
// link is its DOI (lowercased), an arXiv abs/pdf link is its arXiv id, and
// arXiv ids drop their version. Any other URL is itself.
type citeSource struct {
	Kind string // doi, arxiv or url
	ID   string // the lowercased DOI, the unversioned arXiv id or the URL
}

// sourceOf maps a normalized (kind, ref) pair, as normalizeReference
// returns and citations store it, to the source it names.
func sourceOf(kind, ref string) citeSource {
	switch kind {
	case "doi":
		return citeSource{"doi", strings.ToLower(ref)}
	case "arxiv":
		return citeSource{"arxiv", arxivVersion.ReplaceAllString(ref, "")}
	}
	u, err := url.Parse(ref)
	if err != nil || u.RawQuery != "" {
		return citeSource{"url", ref}
	}
	host := strings.ToLower(u.Hostname())
	p := strings.TrimPrefix(u.Path, "/")
	switch {
	case doiHosts[host]:
		if doiPattern.MatchString(p) {
			return citeSource{"doi", strings.ToLower(p)}
		}
	case arxivHosts[host]:
		var id string
		switch {
		case strings.HasPrefix(p, "abs/"):
			id = strings.TrimSuffix(strings.TrimPrefix(p, "abs/"), "/")
		case strings.HasPrefix(p, "pdf/"):
			id = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(p, "pdf/"), "/"), ".pdf")
		}
		if id != "" && (arxivNew.MatchString(id) || arxivOld.MatchString(id)) {
			return citeSource{"arxiv", arxivVersion.ReplaceAllString(id, "")}
		}
	}
	return citeSource{"url", ref}
}
