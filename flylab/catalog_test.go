package flylab

import (
	"slices"
	"strings"
	"testing"
)

func TestCatalog_CoversAllSixBehaviorsWithSimulatedCircuits(t *testing.T) {
	cov := embodimentCoverage(Catalog())
	if !cov.AllBehaviorsSimulated {
		t.Fatal("some behavior has no simulated circuit")
	}
	for _, b := range cov.Behaviors {
		if len(b.SimulatedCircuitIDs) == 0 {
			t.Errorf("%s: no simulated circuit", b.Behavior)
		}
	}
}

func TestCatalog_IncludesTheCircuitsOfTheScienceNotes(t *testing.T) {
	for _, id := range []string{"circuit_mdn_backward", "circuit_lc16_retreat", "circuit_gf_short_escape",
		"circuit_lc_loom_takeoff", "circuit_p9_bpn_forward", "circuit_dn_steering", "circuit_antennal_grooming_abn"} {
		c, err := CircuitByID(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if len(c.MotorMap.RecommendedMetrics) != 5 || len(c.MotorMap.BrainToBodyPaths) == 0 {
			t.Errorf("%s: panel %v, paths %v", id, c.MotorMap.RecommendedMetrics, c.MotorMap.BrainToBodyPaths)
		}
		for _, path := range c.MotorMap.BrainToBodyPaths {
			if last := path[len(path)-1]; !isOneOf(last, BodyParts()) {
				t.Errorf("%s: path %v does not end at a body part", id, path)
			}
		}
	}
}

func TestCatalog_LabelsFollowTheVerificationRules(t *testing.T) {
	d := Catalog()
	for _, e := range d.Evidence {
		if e.Provenance == LabelMeasured && !strings.HasPrefix(e.Verification, "read_in_primary_source") {
			t.Errorf("%s is measured without a primary-source reading", e.ID)
		}
		if strings.HasPrefix(e.Verification, "secondary") && e.Provenance != LabelDerived {
			t.Errorf("%s is a secondary fact labelled %s", e.ID, e.Provenance)
		}
		if e.Kind == KindStructural && e.Provenance == LabelMeasured {
			t.Errorf("%s is structural but labelled measured", e.ID)
		}
		if e.Provenance == LabelConnectomeInferred && !strings.HasPrefix(e.Verification, "read_in_primary_source") {
			t.Errorf("%s is connectome_inferred without a source that was read", e.ID)
		}
	}
	if got := d.DatasetVersions[len(d.DatasetVersions)-1]; got.ID != "gatehouse_flylab_catalog" || !strings.HasPrefix(got.Files[0].SHA256, "sha256:") {
		t.Errorf("catalog dataset version missing: %+v", got)
	}
}

func TestValidateCatalog_RejectsDishonestLabels(t *testing.T) {
	tests := map[string]func(d *CatalogData){
		"secondary fact labelled measured": func(d *CatalogData) {
			i := slices.IndexFunc(d.Evidence, func(e EvidenceRecord) bool { return e.ID == "E-GF-KINEMATICS-022" })
			d.Evidence[i].Provenance = LabelMeasured
		},
		"structural record as hypothesis support": func(d *CatalogData) {
			i := slices.IndexFunc(d.Evidence, func(e EvidenceRecord) bool { return e.ID == "E-MDN-PATH-006" })
			d.Evidence[i].Role = RoleHypothesisSupport
		},
		"unknown source": func(d *CatalogData) { d.Evidence[0].SourceIDs = []string{"SRC-NOPE"} },
		"four-metric panel": func(d *CatalogData) {
			d.Circuits[0].MotorMap.RecommendedMetrics = d.Circuits[0].MotorMap.RecommendedMetrics[:4]
		},
		"behavior left unsimulated": func(d *CatalogData) {
			for i := range d.Circuits {
				if d.Circuits[i].PrimaryBehavior() == BehaviorTurning {
					d.Circuits[i].ModelCoverage = CoverageCatalogOnly
				}
			}
		},
		"DOI claimed but missing": func(d *CatalogData) { d.Sources[0].DOI = "" },
	}
	if err := validateCatalog(Catalog()); err != nil {
		t.Fatalf("embedded catalog invalid: %v", err)
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			d := Catalog()
			mutate(&d)
			if err := validateCatalog(d); err == nil {
				t.Error("validation accepted the broken catalog")
			}
		})
	}
}

func TestCircuitByID_ReturnsCopiesAndNotFound(t *testing.T) {
	c, _ := CircuitByID("circuit_mdn_backward")
	c.MotorMap.RecommendedMetrics[0] = "changed"
	again, _ := CircuitByID("circuit_mdn_backward")
	if again.MotorMap.RecommendedMetrics[0] == "changed" {
		t.Error("a returned circuit shares memory with the catalog")
	}
	if _, err := CircuitByID("circuit_nope"); errorCode(err) != CodeNotFound {
		t.Errorf("got %v, want NOT_FOUND", err)
	}
}
