package flylab

import (
	"math"
	"slices"
)

// ComparisonResult carries the data fields of compare_fly_trials except
// next_action. ExecutionAuthorized is always false: a proposal is never run.
type ComparisonResult struct {
	Comparison          Comparison `json:"comparison"`
	ExecutionAuthorized bool       `json:"execution_authorized"`
}

// Comparison ranks conditions from one or more analyses.
type Comparison struct {
	ID               string            `json:"id"`
	AnalysisIDs      []string          `json:"analysisIds"`
	ObjectiveMetric  string            `json:"objectiveMetric"`
	Objective        string            `json:"objective"`
	RankedConditions []RankedCondition `json:"rankedConditions"`
	Proposal         Proposal          `json:"proposal"`
	Limitations      []string          `json:"limitations"`
	Provenance       []string          `json:"provenance"`
}

// RankedCondition is one condition's place in the ranking (nil values last).
type RankedCondition struct {
	Rank               int      `json:"rank"`
	AnalysisID         string   `json:"analysisId"`
	ConditionID        string   `json:"conditionId"`
	Label              string   `json:"label"`
	Kind               string   `json:"kind"`
	TargetCircuitID    string   `json:"targetCircuitId"`
	ActivationLevel    float64  `json:"activationLevel"`
	Value              *float64 `json:"value"`
	N                  int      `json:"n"`
	DifferenceFromSham *float64 `json:"differenceFromSham"`
}

// Proposal is one bounded next experiment. It is a suggestion only: it
// needs its own design and operator approval.
type Proposal struct {
	ID               string    `json:"id"`
	TargetCircuitID  string    `json:"targetCircuitId"`
	Perturbation     string    `json:"perturbation"`
	Laterality       string    `json:"laterality"`
	ActivationLevels []float64 `json:"activationLevels"`
	ReplicateBudget  int       `json:"replicateBudget"`
	Rationale        string    `json:"rationale"`
	Executed         bool      `json:"executed"`
	Boundary         string    `json:"boundary"`
	Provenance       string    `json:"provenance"`
}

// Compare ranks every condition of the analyses by the objective metric's
// condition mean. Analyses must share a metric panel and method version
// (INCOMPARABLE_ANALYSES); the objective metric must be in the panel
// (METRIC_UNAVAILABLE).
func Compare(analyses []Analysis, objectiveMetric, objective string) (ComparisonResult, error) {
	if len(analyses) < 1 || len(analyses) > 8 {
		return ComparisonResult{}, invalidInput("analysis_ids", "compare 1 to 8 analyses")
	}
	if !isOneOf(objective, []string{"maximize", "minimize"}) {
		return ComparisonResult{}, invalidInput("objective", "objective must be maximize or minimize")
	}
	if !isOneOf(objectiveMetric, MetricIDs()) {
		return ComparisonResult{}, invalidInput("objective_metric", "unknown metric "+objectiveMetric)
	}
	first := analyses[0]
	var ids []string
	for _, a := range analyses {
		if slices.Contains(ids, a.ID) {
			return ComparisonResult{}, invalidInput("analysis_ids", "analysis "+a.ID+" is listed twice")
		}
		ids = append(ids, a.ID)
		if !samePanel(a.Metrics, first.Metrics) || a.MethodVersion != first.MethodVersion {
			return ComparisonResult{}, newError(CodeIncomparableAnalyses, "analyses use different metric panels or methods",
				"analysis_id", a.ID, "panel", a.Metrics, "reference_panel", first.Metrics)
		}
	}
	if !slices.Contains(first.Metrics, objectiveMetric) {
		return ComparisonResult{}, newError(CodeMetricUnavailable, objectiveMetric+" is not in the analyses' panel",
			"panel", first.Metrics)
	}
	ranked := rankConditions(analyses, objectiveMetric, objective)
	c := Comparison{AnalysisIDs: ids, ObjectiveMetric: objectiveMetric, Objective: objective, RankedConditions: ranked,
		Limitations: []string{
			"Ranks simulation-predicted condition means of a reduced-order model; not biological effect sizes.",
			"Conditions from different analyses share seeds only when their protocols share a base seed.",
		},
		Provenance: ComparisonProvenance()}
	c.Proposal = proposeNext(analyses, ranked, objectiveMetric, objective)
	c.ID = contentID("comparison", map[string]any{"analysisIds": ids, "objectiveMetric": objectiveMetric, "objective": objective})
	return ComparisonResult{Comparison: c, ExecutionAuthorized: false}, nil
}

func samePanel(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func rankConditions(analyses []Analysis, metric, objective string) []RankedCondition {
	var ranked []RankedCondition
	for _, a := range analyses {
		for _, c := range a.Conditions {
			rc := RankedCondition{AnalysisID: a.ID, ConditionID: c.ConditionID, Label: c.Label, Kind: c.Kind,
				TargetCircuitID: a.TargetCircuitID, ActivationLevel: a.ActivationLevel, N: c.N}
			for _, m := range c.Metrics {
				if m.Metric == metric {
					rc.Value, rc.DifferenceFromSham = m.Mean, m.DifferenceFromSham
				}
			}
			ranked = append(ranked, rc)
		}
	}
	slices.SortStableFunc(ranked, func(a, b RankedCondition) int {
		switch {
		case a.Value == nil && b.Value == nil:
			return 0
		case a.Value == nil:
			return 1
		case b.Value == nil:
			return -1
		case *a.Value == *b.Value:
			return 0
		case (*a.Value > *b.Value) == (objective == "maximize"):
			return -1
		}
		return 1
	})
	for i := range ranked {
		ranked[i].Rank = i + 1
	}
	return ranked
}

// proposeNext suggests a dose-response around the best perturbation arm.
func proposeNext(analyses []Analysis, ranked []RankedCondition, metric, objective string) Proposal {
	best := analyses[0]
	laterality := best.PrimaryLaterality
	for _, rc := range ranked {
		if rc.Kind == ConditionKindPerturbation {
			idx := slices.IndexFunc(analyses, func(a Analysis) bool { return a.ID == rc.AnalysisID })
			best = analyses[idx]
			laterality = rc.ConditionID[len("condition_"):]
			break
		}
	}
	level := best.ActivationLevel
	var levels []float64
	for _, l := range []float64{level - 0.25, level, level + 0.25} {
		l = math.Round(math.Min(1, math.Max(0.1, l))*20) / 20
		if !slices.Contains(levels, l) {
			levels = append(levels, l)
		}
	}
	budget := min(20, max(5, 2*best.Replicates))
	p := Proposal{TargetCircuitID: best.TargetCircuitID, Perturbation: best.Perturbation, Laterality: laterality,
		ActivationLevels: levels, ReplicateBudget: budget,
		Rationale: "Bracket the best-ranked perturbation arm (" + laterality + ", level " + fmtFloat(level) + ") with a dose-response to test whether " +
			metric + " " + map[string]string{"maximize": "rises", "minimize": "falls"}[objective] + " with drive.",
		Boundary:   "Never executed automatically: it needs a new design and visible operator approval.",
		Provenance: LabelAgentHypothesized}
	p.ID = contentID("proposal", p)
	return p
}
