package flylab

// Citation is one source of an evidence record as a reader cites it. DOI is
// set only when the science notes list it (doiStatus
// listed_in_science_notes); an identifier built or copied from elsewhere
// stays in the source record, not in the citation. Empty fields were not
// verified.
type Citation struct {
	SourceID           string `json:"sourceId"`
	Authors            string `json:"authors"`
	Year               int    `json:"year,omitempty"`
	Title              string `json:"title"`
	Venue              string `json:"venue"`
	DOI                string `json:"doi,omitempty"`
	URL                string `json:"url,omitempty"`
	BibliographyStatus string `json:"bibliographyStatus"`
	Text               string `json:"text"`
}

// DOIVerifiedStatus is the only doiStatus whose DOI a citation carries.
const DOIVerifiedStatus = "listed_in_science_notes"

// CitationOf turns a source record into a citation.
func CitationOf(s Source) Citation {
	c := Citation{SourceID: s.ID, Authors: s.Authors, Year: s.Year, Title: s.Title, Venue: s.Venue, URL: s.URL,
		BibliographyStatus: s.BibliographyStatus, Text: s.Citation}
	if s.DOIStatus == DOIVerifiedStatus {
		c.DOI = s.DOI
	}
	return c
}

// attachCitations fills every evidence record's citations from its sources.
func attachCitations(d *CatalogData) {
	sources := map[string]Source{}
	for _, s := range d.Sources {
		sources[s.ID] = s
	}
	for i := range d.Evidence {
		e := &d.Evidence[i]
		e.Citations = make([]Citation, 0, len(e.SourceIDs))
		for _, id := range e.SourceIDs {
			if s, ok := sources[id]; ok {
				e.Citations = append(e.Citations, CitationOf(s))
			}
		}
	}
}
