package flylab

import (
	"slices"
	"testing"
)

func TestSearchCircuits_RanksByNameBehaviorAndText(t *testing.T) {
	tests := []struct {
		name, query, behavior, bodyPart string
		wantStatus, wantSelected        string
	}{
		{"neuron name", "MDN", "", "", SelectionSelected, "circuit_mdn_backward"},
		{"synonym name", "DNp01", "", "", SelectionSelected, "circuit_gf_short_escape"},
		{"two-word name", "giant fiber", "", "", SelectionSelected, "circuit_gf_short_escape"},
		{"behavior words", "which neurons steer a walking fly to turn left", "", "", SelectionSelected, "circuit_dn_steering"},
		{"mission prompt", "Find the adult Drosophila neurons that make a fly walk backward when it meets a barrier, and test whether activating them increases backward distance compared with sham.", "", "", SelectionSelected, "circuit_mdn_backward"},
		{"loom retreat", "LC16 retreat from looming", "", "", SelectionSelected, "circuit_lc16_retreat"},
		{"forward", "fast straight forward running", "", "", SelectionSelected, "circuit_p9_bpn_forward"},
		{"behavior filter only", "neurons", BehaviorForwardWalking, "", SelectionAmbiguous, ""},
		{"body part filter", "escape takeoff", "", LeftWing, SelectionAmbiguous, ""},
		{"ambiguous grooming", "antennal grooming", "", "", SelectionAmbiguous, ""},
		{"nothing", "xyzzy plugh", "", "", SelectionNoMatch, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := SearchCircuits(SearchQuery{Query: tt.query, Behavior: tt.behavior, BodyPart: tt.bodyPart})
			if err != nil {
				t.Fatal(err)
			}
			if res.SelectionStatus != tt.wantStatus {
				t.Fatalf("status %s, want %s (candidates %+v)", res.SelectionStatus, tt.wantStatus, res.CandidateCircuits)
			}
			if tt.wantSelected != "" && (res.SelectedCircuitID == nil || *res.SelectedCircuitID != tt.wantSelected) {
				t.Errorf("selected %v, want %s", res.SelectedCircuitID, tt.wantSelected)
			}
			if tt.wantStatus == SelectionAmbiguous && (res.Disambiguation == nil || len(res.Disambiguation.Options) < 2) {
				t.Errorf("ambiguous result without options: %+v", res.Disambiguation)
			}
			if tt.bodyPart != "" {
				for _, c := range res.CandidateCircuitRecords {
					if !slices.Contains(c.TargetBodyParts, tt.bodyPart) {
						t.Errorf("%s does not recruit %s", c.ID, tt.bodyPart)
					}
				}
			}
		})
	}
}

func TestSearchCircuits_KeepsEveryCandidateTiedAtTheCutoff(t *testing.T) {
	res, err := SearchCircuits(SearchQuery{Query: "antennal grooming", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.CandidateCircuits) < 2 || res.CandidateCircuits[0].Score != res.CandidateCircuits[1].Score {
		t.Fatalf("tie at the cutoff was dropped: %+v", res.CandidateCircuits)
	}
	if res.CandidateMatchCount < len(res.CandidateCircuits) {
		t.Errorf("match count %d below returned %d", res.CandidateMatchCount, len(res.CandidateCircuits))
	}
}

func TestSearchCircuits_FiltersEvidenceByLabel(t *testing.T) {
	res, err := SearchCircuits(SearchQuery{Query: "MDN backward", EvidenceLabels: []string{LabelConnectomeInferred}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evidence) == 0 {
		t.Fatal("no connectome evidence returned")
	}
	for _, e := range res.Evidence {
		if e.Provenance != LabelConnectomeInferred {
			t.Errorf("%s has label %s", e.ID, e.Provenance)
		}
	}
	if len(res.HypothesisEligibleEvidenceIDs) != 0 || res.CoverageWarning == nil {
		t.Error("structural-only evidence must not be hypothesis-eligible and must warn")
	}
}

func TestSearchCircuits_ReportsCausalEvidenceOfTheSelectedCircuit(t *testing.T) {
	res, _ := SearchCircuits(SearchQuery{Query: "MDN"})
	if !slices.Contains(res.CausalEvidenceIDsByPerturbation[PerturbationActivate], "E-MDN-ACTIVATION-001") ||
		!slices.Contains(res.CausalEvidenceIDsByPerturbation[PerturbationSilence], "E-MDN-SILENCING-002") {
		t.Errorf("causal evidence %+v", res.CausalEvidenceIDsByPerturbation)
	}
	if slices.Contains(res.HypothesisEligibleEvidenceIDs, "E-MDN-PATH-006") {
		t.Error("a structural record is hypothesis-eligible")
	}
}

func TestSearchCircuits_RejectsInvalidQueries(t *testing.T) {
	for name, q := range map[string]SearchQuery{
		"empty":          {Query: "   "},
		"bad behavior":   {Query: "x", Behavior: "flying"},
		"bad body part":  {Query: "x", BodyPart: "tail"},
		"limit too big":  {Query: "x", Limit: 21},
		"bad label":      {Query: "x", EvidenceLabels: []string{"rumour"}},
		"repeated label": {Query: "x", EvidenceLabels: []string{LabelMeasured, LabelMeasured}},
		"empty labels":   {Query: "x", EvidenceLabels: []string{}},
	} {
		if _, err := SearchCircuits(q); errorCode(err) != CodeInvalidInput {
			t.Errorf("%s: got %v, want INVALID_INPUT", name, err)
		}
	}
}
