package flylab

import "slices"

// CheckHypothesisEvidence applies the contract's evidence rule for
// draft_fly_hypothesis: the circuit must list the predicted behavior, the
// primary outcome must be in its motor map's panel, every cited id must be
// one of the circuit's evidence records, and at least one must be a
// hypothesis_support perturbation_effect matching both perturbation and
// behavior. It returns the ids of those causal records.
func CheckHypothesisEvidence(circuitID, behavior, perturbation, primaryOutcome string, evidenceIDs []string) ([]string, error) {
	c, err := CircuitByID(circuitID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(c.Behaviors, behavior) {
		return nil, newError(CodeUnsupportedTarget, circuitID+" is not catalogued for "+behavior, "behaviors", c.Behaviors)
	}
	if !isOneOf(perturbation, []string{PerturbationActivate, PerturbationSilence}) {
		return nil, invalidInput("perturbation", "perturbation must be activate or silence")
	}
	if !slices.Contains(c.MotorMap.RecommendedMetrics, primaryOutcome) {
		return nil, newError(CodeMetricUnavailable, primaryOutcome+" is not in the motor map's panel",
			"panel", c.MotorMap.RecommendedMetrics)
	}
	var causal []string
	for _, id := range evidenceIDs {
		if !slices.Contains(c.EvidenceIDs, id) {
			return nil, newError(CodeEvidenceMismatch, id+" is not evidence of "+circuitID, "evidence_id", id)
		}
		e := mustCatalog().evidence[id]
		if e.Role == RoleHypothesisSupport && e.Kind == KindPerturbationEffect &&
			slices.Contains(e.Perturbations, perturbation) && slices.Contains(e.Behaviors, behavior) {
			causal = append(causal, id)
		}
	}
	if len(causal) == 0 {
		return nil, newError(CodeEvidenceMismatch,
			"no cited hypothesis_support perturbation_effect matches "+perturbation+" and "+behavior,
			"eligible", eligibleEvidence(c, perturbation, behavior))
	}
	return causal, nil
}

func eligibleEvidence(c Circuit, perturbation, behavior string) []string {
	ids := []string{}
	for _, id := range c.EvidenceIDs {
		e := mustCatalog().evidence[id]
		if e.Role == RoleHypothesisSupport && e.Kind == KindPerturbationEffect &&
			slices.Contains(e.Perturbations, perturbation) && slices.Contains(e.Behaviors, behavior) {
			ids = append(ids, id)
		}
	}
	return ids
}
