package flylab

import "testing"

func TestCheckHypothesisEvidence_NeedsAMatchingCausalRecord(t *testing.T) {
	tests := []struct {
		name, circuit, behavior, perturbation, outcome string
		evidence                                       []string
		code                                           string
	}{
		{"activation supported", "circuit_mdn_backward", BehaviorBackwardWalking, PerturbationActivate, MetricBackwardDistance,
			[]string{"E-MDN-ACTIVATION-001", "E-MDN-PATH-006"}, ""},
		{"structural record alone", "circuit_mdn_backward", BehaviorBackwardWalking, PerturbationActivate, MetricBackwardDistance,
			[]string{"E-MDN-PATH-006"}, CodeEvidenceMismatch},
		{"wrong perturbation", "circuit_lc16_retreat", BehaviorRetreat, PerturbationSilence, MetricBackwardDistance,
			[]string{"E-LC16-ACTIVATION-010"}, CodeEvidenceMismatch},
		{"null result cannot support", "circuit_p9_bpn_forward", BehaviorForwardWalking, PerturbationSilence, MetricSignedSpeed,
			[]string{"E-P9-TNT-042"}, CodeEvidenceMismatch},
		{"another circuit's record", "circuit_mdn_backward", BehaviorBackwardWalking, PerturbationActivate, MetricBackwardDistance,
			[]string{"E-GF-CAUSAL-020"}, CodeEvidenceMismatch},
		{"outcome outside panel", "circuit_mdn_backward", BehaviorBackwardWalking, PerturbationActivate, MetricWingRecruitment,
			[]string{"E-MDN-ACTIVATION-001"}, CodeMetricUnavailable},
		{"behavior not catalogued", "circuit_mdn_backward", BehaviorGrooming, PerturbationActivate, MetricLegRecruitment,
			[]string{"E-MDN-ACTIVATION-001"}, CodeUnsupportedTarget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			causal, err := CheckHypothesisEvidence(tt.circuit, tt.behavior, tt.perturbation, tt.outcome, tt.evidence)
			if got := errorCode(err); got != tt.code {
				t.Fatalf("got %v, want %q", err, tt.code)
			}
			if tt.code == "" && len(causal) != 1 {
				t.Errorf("causal ids %v", causal)
			}
		})
	}
}
