package flylab

import "testing"

func TestSearchCircuits_EveryEvidenceRecordCarriesItsCitations(t *testing.T) {
	for _, query := range []string{"backward walking", "steering turning DNa02", "giant fiber escape", "antennal grooming"} {
		res, err := SearchCircuits(SearchQuery{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Evidence) == 0 {
			t.Fatalf("%q returned no evidence", query)
		}
		for _, e := range res.Evidence {
			if len(e.Citations) != len(e.SourceIDs) {
				t.Fatalf("%s: %d citations for sources %v", e.ID, len(e.Citations), e.SourceIDs)
			}
			for i, c := range e.Citations {
				s, err := SourceByID(e.SourceIDs[i])
				if err != nil || c.SourceID != s.ID {
					t.Fatalf("%s citation %d is %s, source %s", e.ID, i, c.SourceID, e.SourceIDs[i])
				}
				if verified := s.DOIStatus == DOIVerifiedStatus; (c.DOI != "") != verified || (verified && c.DOI != s.DOI) {
					t.Errorf("%s cites %s with DOI %q although its DOI status is %s", e.ID, s.ID, c.DOI, s.DOIStatus)
				}
				if c.Text == "" || c.BibliographyStatus == "" {
					t.Errorf("%s: citation of %s lacks its text or bibliography status", e.ID, s.ID)
				}
			}
		}
	}
}

func TestCitationOf_KeepsUnverifiedIdentifiersOut(t *testing.T) {
	e, err := EvidenceByID("E-DNA02-RATE-052")
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := SourceByID(e.SourceIDs[0]); s.DOI == "" || e.Citations[0].DOI != "" {
		t.Fatalf("a DOI built from an article number (%q) reached the citation as %q", s.DOI, e.Citations[0].DOI)
	}
	mdn, _ := EvidenceByID("E-MDN-ACTIVATION-001")
	c := mdn.Citations[0]
	if c.DOI != "10.1126/science.1249964" || c.Year != 2014 || c.Title == "" || c.Venue != "Science" || c.Authors == "" {
		t.Fatalf("Bidaye 2014 citation incomplete: %+v", c)
	}
}
