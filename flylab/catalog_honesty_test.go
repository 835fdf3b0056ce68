package flylab

import (
	"slices"
	"testing"
)

func evidenceIndex(d *CatalogData, id string) int {
	return slices.IndexFunc(d.Evidence, func(e EvidenceRecord) bool { return e.ID == id })
}

func circuitIndex(d *CatalogData, id string) int {
	return slices.IndexFunc(d.Circuits, func(c Circuit) bool { return c.ID == id })
}

func TestValidateCatalog_RejectsWhatTheNotesDoNotSupport(t *testing.T) {
	tests := map[string]func(d *CatalogData){
		"untagged anatomy labelled connectome_inferred": func(d *CatalogData) {
			d.Evidence[evidenceIndex(d, "E-GF-PATH-023")].Provenance = LabelConnectomeInferred
		},
		"FlyBase annotation labelled measured": func(d *CatalogData) {
			i := evidenceIndex(d, "E-P9-TNT-042")
			d.Evidence[i].Provenance, d.Evidence[i].Verification = LabelMeasured, "read_in_primary_source (FlyBase)"
		},
		"record for a behavior its circuit does not list": func(d *CatalogData) {
			i := evidenceIndex(d, "E-MDN-LATERALITY-005")
			d.Evidence[i].Behaviors = []string{BehaviorBackwardWalking, BehaviorTurning}
		},
		"bibliography called checked without the record it was checked against": func(d *CatalogData) {
			i := slices.IndexFunc(d.Sources, func(s Source) bool { return s.ID == "SRC-BIDAYE-SCIENCE-2014" })
			d.Sources[i].BibliographyURL = ""
		},
		"record source the circuit does not credit": func(d *CatalogData) {
			d.Evidence[evidenceIndex(d, "E-MDN-PATH-006")].SourceIDs = []string{"SRC-FLYWIRE-TYPES-NATURE-2024"}
		},
		"path element stronger than its evidence": func(d *CatalogData) {
			m := &d.Circuits[circuitIndex(d, "circuit_gf_short_escape")].MotorMap
			m.Nodes[slices.IndexFunc(m.Nodes, func(n PathNode) bool { return n.ID == "gf_ttmn" })].Provenance = LabelConnectomeInferred
		},
		"supported perturbation no hypothesis can reach": func(d *CatalogData) {
			i := circuitIndex(d, "circuit_lc16_retreat")
			d.Circuits[i].MotorMap.SupportedPerturbations = []string{PerturbationActivate, PerturbationSilence}
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			d := Catalog()
			mutate(&d)
			if err := validateCatalog(d); err == nil {
				t.Error("validation accepted the catalog")
			}
		})
	}
}

// TestCatalog_EverySupportedPerturbationCanBeDraftedAndDesigned walks the
// pipeline's own checks: for each simulated circuit and each perturbation
// its motor map supports, some behavior, panel metric and cited evidence
// pass draft_fly_hypothesis's rule, and the design is accepted.
func TestCatalog_EverySupportedPerturbationCanBeDraftedAndDesigned(t *testing.T) {
	for _, c := range Catalog().Circuits {
		if c.ModelCoverage != CoverageMappedReducedOrder {
			continue
		}
		for _, p := range c.MotorMap.SupportedPerturbations {
			t.Run(c.ID+"/"+p, func(t *testing.T) {
				drafted := false
				for _, b := range c.Behaviors {
					if _, err := CheckHypothesisEvidence(c.ID, b, p, c.MotorMap.RecommendedMetrics[0], c.EvidenceIDs); err == nil {
						drafted = true
					}
				}
				if !drafted {
					t.Fatalf("no behavior of %v lets a %s hypothesis be drafted", c.Behaviors, p)
				}
				if _, err := DesignProtocol(DesignRequest{HypothesisID: "hyp_t", TargetCircuitID: c.ID, Perturbation: p,
					Laterality: c.MotorMap.SupportedLaterality[0], ActivationLevel: 0.8, OnsetMs: 500, DurationMs: 500,
					TrialDurationMs: 1500, Replicates: 1, IncludeBaseline: true, IncludeShamControl: true, Seed: 1}); err != nil {
					t.Fatalf("design refused: %v", err)
				}
			})
		}
	}
}

func TestCatalog_EveryCausalRecordIsUsableByItsCircuits(t *testing.T) {
	d := Catalog()
	for _, c := range d.Circuits {
		for _, id := range c.EvidenceIDs {
			e := d.Evidence[evidenceIndex(&d, id)]
			if e.Role != RoleHypothesisSupport {
				continue
			}
			for _, b := range e.Behaviors {
				for _, p := range e.Perturbations {
					if _, err := CheckHypothesisEvidence(c.ID, b, p, c.MotorMap.RecommendedMetrics[0], []string{id}); err != nil {
						t.Errorf("%s cites %s for %s/%s but a hypothesis citing it is refused: %v", c.ID, id, b, p, err)
					}
				}
			}
		}
	}
}
