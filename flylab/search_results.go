package flylab

import (
	"slices"
	"strconv"
	"strings"
)

// EmbodimentCoverage says, for the whole catalog, which behaviors and body
// parts have simulated circuits and which are only catalogued.
type EmbodimentCoverage struct {
	Behaviors             []BehaviorCoverage `json:"behaviors"`
	BodyParts             []BodyPartCoverage `json:"bodyParts"`
	AllBehaviorsSimulated bool               `json:"allBehaviorsSimulated"`
	Boundary              string             `json:"boundary"`
	Provenance            []string           `json:"provenance"`
}

// BehaviorCoverage lists the circuits whose primary behavior this is.
type BehaviorCoverage struct {
	Behavior              string   `json:"behavior"`
	SimulatedCircuitIDs   []string `json:"simulatedCircuitIds"`
	CatalogOnlyCircuitIDs []string `json:"catalogOnlyCircuitIds"`
}

// BodyPartCoverage lists the simulated circuits that recruit a body part.
type BodyPartCoverage struct {
	BodyPart   string   `json:"bodyPart"`
	CircuitIDs []string `json:"circuitIds"`
}

func embodimentCoverage(d CatalogData) EmbodimentCoverage {
	cov := EmbodimentCoverage{AllBehaviorsSimulated: true, Provenance: []string{LabelDerived},
		Boundary: "Coverage of the reduced-order model, not of Drosophila biology: each behavior is modelled through the listed circuits only."}
	for _, b := range Behaviors() {
		bc := BehaviorCoverage{Behavior: b, SimulatedCircuitIDs: []string{}, CatalogOnlyCircuitIDs: []string{}}
		for _, c := range d.Circuits {
			if c.PrimaryBehavior() != b {
				continue
			}
			if c.ModelCoverage == CoverageMappedReducedOrder {
				bc.SimulatedCircuitIDs = append(bc.SimulatedCircuitIDs, c.ID)
			} else {
				bc.CatalogOnlyCircuitIDs = append(bc.CatalogOnlyCircuitIDs, c.ID)
			}
		}
		cov.AllBehaviorsSimulated = cov.AllBehaviorsSimulated && len(bc.SimulatedCircuitIDs) > 0
		cov.Behaviors = append(cov.Behaviors, bc)
	}
	for _, p := range BodyParts() {
		pc := BodyPartCoverage{BodyPart: p, CircuitIDs: []string{}}
		for _, c := range d.Circuits {
			if c.ModelCoverage == CoverageMappedReducedOrder && slices.Contains(c.TargetBodyParts, p) {
				pc.CircuitIDs = append(pc.CircuitIDs, c.ID)
			}
		}
		cov.BodyParts = append(cov.BodyParts, pc)
	}
	return cov
}

// evidenceFor collects the candidates' evidence and connectome records,
// keeping only the requested labels when labels were given.
func evidenceFor(idx *catalogIndex, ranked []CandidateCircuit, labels []string) ([]EvidenceRecord, []ConnectomeRecord) {
	keep := func(label string) bool { return labels == nil || slices.Contains(labels, label) }
	seen := map[string]bool{}
	evidence := []EvidenceRecord{}
	for _, cand := range ranked {
		for _, id := range idx.circuits[cand.CircuitID].EvidenceIDs {
			e := idx.evidence[id]
			if !seen[id] && keep(e.Provenance) {
				seen[id] = true
				evidence = append(evidence, cloneEvidence(*e))
			}
		}
	}
	records := []ConnectomeRecord{}
	for _, r := range idx.data.ConnectomeRecords {
		relevant := len(r.CircuitIDs) == 0
		for _, cand := range ranked {
			relevant = relevant || slices.Contains(r.CircuitIDs, cand.CircuitID)
		}
		if relevant && keep(r.Provenance) {
			r.CircuitIDs, r.SourceIDs = slices.Clone(r.CircuitIDs), slices.Clone(r.SourceIDs)
			records = append(records, r)
		}
	}
	return evidence, records
}

// causalEvidence lists hypothesis-eligible records (measured perturbation
// effects with role hypothesis_support), for the selected circuit when
// there is one, else for all returned candidates.
func causalEvidence(evidence []EvidenceRecord, selected *string) ([]string, map[string][]string) {
	eligible := []string{}
	byPerturbation := map[string][]string{PerturbationActivate: {}, PerturbationSilence: {}}
	for _, e := range evidence {
		if e.Role != RoleHypothesisSupport || e.Kind != KindPerturbationEffect {
			continue
		}
		if selected != nil && !circuitCites(*selected, e.ID) {
			continue
		}
		eligible = append(eligible, e.ID)
		for _, p := range e.Perturbations {
			byPerturbation[p] = append(byPerturbation[p], e.ID)
		}
	}
	return eligible, byPerturbation
}

func circuitCites(circuitID, evidenceID string) bool {
	c, ok := mustCatalog().circuits[circuitID]
	return ok && slices.Contains(c.EvidenceIDs, evidenceID)
}

func coverageWarning(idx *catalogIndex, res SearchResult) *string {
	var warnings []string
	switch res.SelectionStatus {
	case SelectionNoMatch:
		warnings = append(warnings, "No catalog circuit matches the query and filters; the catalog covers "+strings.Join(Behaviors(), ", ")+".")
	case SelectionAmbiguous:
		warnings = append(warnings, "The query is ambiguous; choose one circuit from disambiguation.options before drafting a hypothesis.")
	}
	if res.SelectedCircuitID != nil && idx.circuits[*res.SelectedCircuitID].ModelCoverage == CoverageCatalogOnly {
		warnings = append(warnings, "The selected circuit is catalog-only: it can be cited but not simulated.")
	}
	if res.SelectionStatus != SelectionNoMatch && len(res.HypothesisEligibleEvidenceIDs) == 0 {
		warnings = append(warnings, "No hypothesis-eligible evidence is returned (check the evidence label filter).")
	}
	if len(warnings) == 0 {
		return nil
	}
	w := strings.Join(warnings, " ")
	return &w
}

func discoveryDecision(q SearchQuery, res SearchResult) DiscoveryDecision {
	ids := make([]string, len(res.CandidateCircuits))
	for i, c := range res.CandidateCircuits {
		ids[i] = c.CircuitID
	}
	rationale := "No circuit matched."
	switch res.SelectionStatus {
	case SelectionSelected:
		c := res.CandidateCircuits[0]
		rationale = "Selected " + c.CircuitID + " (score " + strconv.Itoa(c.Score) + ", matched " + strings.Join(c.MatchedTerms, ", ") + ")."
	case SelectionAmbiguous:
		rationale = res.Disambiguation.Question
	}
	version := CatalogVersion()
	return DiscoveryDecision{
		ID:          contentID("discovery", map[string]any{"search": q, "catalogVersion": version}),
		MissionGoal: q.Query, Search: q, Status: res.SelectionStatus, SelectedCircuitID: res.SelectedCircuitID,
		RankedCircuitIDs: ids, Rationale: rationale, CatalogVersion: version, Provenance: []string{LabelDerived},
	}
}
