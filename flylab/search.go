package flylab

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// SearchQuery is the input of find_fly_circuits. Empty Behavior and
// BodyPart mean "any"; Limit 0 means the default 8.
type SearchQuery struct {
	Query          string   `json:"query"`
	Behavior       string   `json:"behavior"`
	BodyPart       string   `json:"body_part"`
	EvidenceLabels []string `json:"evidence_labels,omitempty"`
	Limit          int      `json:"limit"`
}

// SearchResult carries the data fields of find_fly_circuits, except
// next_action, which belongs to the tool layer.
type SearchResult struct {
	DiscoveryDecision               DiscoveryDecision   `json:"discovery_decision"`
	CandidateCircuitRecords         []Circuit           `json:"candidate_circuit_records"`
	CandidateCircuits               []CandidateCircuit  `json:"candidate_circuits"`
	SelectionStatus                 string              `json:"selection_status"`
	Disambiguation                  *Disambiguation     `json:"disambiguation"`
	Circuits                        []Circuit           `json:"circuits"`
	Evidence                        []EvidenceRecord    `json:"evidence"`
	ConnectomeRecords               []ConnectomeRecord  `json:"connectome_records"`
	DatasetVersions                 []DatasetVersion    `json:"dataset_versions"`
	EmbodimentCoverage              EmbodimentCoverage  `json:"embodiment_coverage"`
	SelectedCircuitID               *string             `json:"selected_circuit_id"`
	CandidateMatchCount             int                 `json:"candidate_match_count"`
	HypothesisEligibleEvidenceIDs   []string            `json:"hypothesis_eligible_evidence_ids"`
	CausalEvidenceIDsByPerturbation map[string][]string `json:"causal_evidence_ids_by_perturbation"`
	EvidenceRolePolicy              EvidenceRolePolicy  `json:"evidence_role_policy"`
	CoverageWarning                 *string             `json:"coverage_warning"`
}

// Selection statuses of a search.
const (
	SelectionSelected  = "selected"
	SelectionAmbiguous = "ambiguous"
	SelectionNoMatch   = "no_match"
)

// DiscoveryDecision records what was searched and what was decided.
// MissionGoal is the caller's text: an untrusted annotation, not evidence.
type DiscoveryDecision struct {
	ID                string      `json:"id"`
	MissionGoal       string      `json:"missionGoal"`
	Search            SearchQuery `json:"search"`
	Status            string      `json:"status"`
	SelectedCircuitID *string     `json:"selectedCircuitId"`
	RankedCircuitIDs  []string    `json:"rankedCircuitIds"`
	Rationale         string      `json:"rationale"`
	CatalogVersion    string      `json:"catalogVersion"`
	Provenance        []string    `json:"provenance"`
}

// CandidateCircuit is one ranked search hit.
type CandidateCircuit struct {
	CircuitID          string   `json:"circuitId"`
	Name               string   `json:"name"`
	PrimaryBehavior    string   `json:"primaryBehavior"`
	Behaviors          []string `json:"behaviors"`
	Score              int      `json:"score"`
	MatchedTerms       []string `json:"matchedTerms"`
	ModelCoverage      string   `json:"modelCoverage"`
	MotorMapID         string   `json:"motorMapId"`
	RecommendedMetrics []string `json:"recommendedMetrics"`
}

// Disambiguation lists the near-equal alternatives when a query does not
// pick one circuit; the agent must choose (or ask) before drafting.
type Disambiguation struct {
	Reason   string             `json:"reason"`
	Question string             `json:"question"`
	Options  []CandidateCircuit `json:"options"`
}

// EvidenceRolePolicy states which evidence may support a hypothesis.
type EvidenceRolePolicy struct {
	HypothesisSupport string `json:"hypothesis_support"`
	Supplemental      string `json:"supplemental"`
	Rule              string `json:"rule"`
}

func evidenceRolePolicy() EvidenceRolePolicy {
	return EvidenceRolePolicy{
		HypothesisSupport: "A measured perturbation_effect read in a primary source; may support a hypothesis whose perturbation and behavior it matches.",
		Supplemental:      "Structural, inventory, motor-context, secondary or null-result records; they may accompany but never alone support a hypothesis.",
		Rule:              "draft_fly_hypothesis needs at least one cited hypothesis_support record of kind perturbation_effect matching the requested perturbation and predicted behavior.",
	}
}

// SearchCircuits ranks catalog circuits for a query. Every candidate tied
// with the one at the Limit cutoff is kept, so more than Limit may return.
func SearchCircuits(q SearchQuery) (SearchResult, error) {
	q, err := normalizeSearchQuery(q)
	if err != nil {
		return SearchResult{}, err
	}
	idx := mustCatalog()
	ranked := rankCandidates(idx, q)
	matchCount := len(ranked)
	ranked = cutAtLimitKeepingTies(ranked, q.Limit)

	res := SearchResult{
		CandidateCircuitRecords: []Circuit{}, CandidateCircuits: ranked, Circuits: []Circuit{},
		DatasetVersions: slices.Clone(idx.data.DatasetVersions), EmbodimentCoverage: embodimentCoverage(idx.data),
		CandidateMatchCount: matchCount, EvidenceRolePolicy: evidenceRolePolicy(),
	}
	for _, c := range ranked {
		res.CandidateCircuitRecords = append(res.CandidateCircuitRecords, cloneCircuit(*idx.circuits[c.CircuitID]))
	}
	res.SelectionStatus, res.Disambiguation = decideSelection(ranked)
	if res.SelectionStatus == SelectionSelected {
		id := ranked[0].CircuitID
		res.SelectedCircuitID = &id
		res.Circuits = append(res.Circuits, cloneCircuit(*idx.circuits[id]))
	}
	res.Evidence, res.ConnectomeRecords = evidenceFor(idx, ranked, q.EvidenceLabels)
	res.HypothesisEligibleEvidenceIDs, res.CausalEvidenceIDsByPerturbation = causalEvidence(res.Evidence, res.SelectedCircuitID)
	res.CoverageWarning = coverageWarning(idx, res)
	res.DiscoveryDecision = discoveryDecision(q, res)
	return res, nil
}

func normalizeSearchQuery(q SearchQuery) (SearchQuery, error) {
	q.Query = strings.TrimSpace(q.Query)
	if q.Query == "" || utf8.RuneCountInString(q.Query) > maxQueryRunes || !utf8.ValidString(q.Query) {
		return q, invalidInput("query", "query must be 1 to 1000 characters of valid UTF-8")
	}
	if q.Behavior == "" {
		q.Behavior = behaviorFilterAny
	}
	if q.Behavior != behaviorFilterAny && !isOneOf(q.Behavior, Behaviors()) {
		return q, invalidInput("behavior", "unknown behavior "+q.Behavior, "allowed", append(Behaviors(), behaviorFilterAny))
	}
	if q.BodyPart == "" {
		q.BodyPart = bodyPartFilterAny
	}
	if q.BodyPart != bodyPartFilterAny && !isOneOf(q.BodyPart, BodyParts()) {
		return q, invalidInput("body_part", "unknown body part "+q.BodyPart, "allowed", append(BodyParts(), bodyPartFilterAny))
	}
	if q.Limit == 0 {
		q.Limit = defaultSearchLimit
	}
	if q.Limit < 1 || q.Limit > maxSearchLimit {
		return q, invalidInput("limit", "limit must be between 1 and 20")
	}
	if q.EvidenceLabels != nil {
		if len(q.EvidenceLabels) < 1 || len(q.EvidenceLabels) > 5 {
			return q, invalidInput("evidence_labels", "give 1 to 5 evidence labels")
		}
		for i, l := range q.EvidenceLabels {
			if !isOneOf(l, ProvenanceLabels()) || slices.Contains(q.EvidenceLabels[:i], l) {
				return q, invalidInput("evidence_labels", "unknown or repeated label "+l, "allowed", ProvenanceLabels())
			}
		}
		q.EvidenceLabels = slices.Clone(q.EvidenceLabels)
	}
	return q, nil
}

func rankCandidates(idx *catalogIndex, q SearchQuery) []CandidateCircuit {
	tokens := map[string]bool{}
	queryBehaviors := map[string]bool{}
	for _, t := range tokenize(q.Query) {
		tokens[t] = true
		if b, ok := behaviorWords[t]; ok {
			queryBehaviors[b] = true
		}
	}
	var ranked []CandidateCircuit
	for _, doc := range idx.searchDocs {
		if q.Behavior != behaviorFilterAny && !slices.Contains(doc.behaviors, q.Behavior) {
			continue
		}
		if q.BodyPart != bodyPartFilterAny && !slices.Contains(doc.bodyParts, q.BodyPart) {
			continue
		}
		score, matched := scoreDoc(doc, tokens, queryBehaviors, q.Behavior)
		if score == 0 {
			continue
		}
		c := idx.circuits[doc.circuitID]
		ranked = append(ranked, CandidateCircuit{CircuitID: c.ID, Name: c.Name, PrimaryBehavior: c.PrimaryBehavior(),
			Behaviors: slices.Clone(c.Behaviors), Score: score, MatchedTerms: append([]string{}, matched...),
			ModelCoverage: c.ModelCoverage, MotorMapID: c.MotorMapID,
			RecommendedMetrics: slices.Clone(c.MotorMap.RecommendedMetrics)})
	}
	slices.SortStableFunc(ranked, func(a, b CandidateCircuit) int {
		if a.Score != b.Score {
			return b.Score - a.Score
		}
		return strings.Compare(a.CircuitID, b.CircuitID)
	})
	if ranked == nil {
		ranked = []CandidateCircuit{}
	}
	return ranked
}

// cutAtLimitKeepingTies keeps the first limit candidates plus every further
// candidate whose score equals the score at the cutoff.
func cutAtLimitKeepingTies(ranked []CandidateCircuit, limit int) []CandidateCircuit {
	if len(ranked) <= limit {
		return ranked
	}
	cut := limit
	for cut < len(ranked) && ranked[cut].Score == ranked[limit-1].Score {
		cut++
	}
	return ranked[:cut]
}

func decideSelection(ranked []CandidateCircuit) (string, *Disambiguation) {
	if len(ranked) == 0 {
		return SelectionNoMatch, nil
	}
	best := ranked[0].Score
	var close []CandidateCircuit
	for _, c := range ranked {
		if c.Score*100 >= best*ambiguityPercent {
			close = append(close, c)
		}
	}
	if len(close) == 1 {
		return SelectionSelected, nil
	}
	names := make([]string, len(close))
	for i, c := range close {
		names[i] = c.Name + " (" + c.PrimaryBehavior + ")"
	}
	return SelectionAmbiguous, &Disambiguation{
		Reason:   "the query matches several circuits almost equally",
		Question: "Which circuit should the experiment target: " + strings.Join(names, ", or ") + "?",
		Options:  close,
	}
}
