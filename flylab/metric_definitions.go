package flylab

import "slices"

// MetricDefinition documents one metric exactly as it is computed.
type MetricDefinition struct {
	ID              string     `json:"id"`
	Label           string     `json:"label"`
	Formula         string     `json:"formula"`
	Unit            string     `json:"unit"`
	SignConvention  string     `json:"signConvention"`
	Aggregation     string     `json:"aggregation"`
	NullRule        string     `json:"nullRule"`
	WindowSemantics string     `json:"windowSemantics"`
	Range           [2]float64 `json:"range"`
	MethodVersion   string     `json:"methodVersion"`
	Provenance      []string   `json:"provenance"`
	Boundary        string     `json:"boundary"`
}

const (
	windowText   = "W = samples with onset ≤ t ≤ onset + duration (5 ms samples of the 1 ms integration)."
	meanSDText   = "Condition mean and sample SD over runs with a value; n counts them."
	noNullText   = "Never null."
	simBoundary  = "Computed from simulated trajectories; not a wet-lab measurement."
	dispFormula  = "d_i = (p(i+1) − p(i)) · (cos θ_i, sin θ_i)"
	maxAbsSpeed  = 400.0
	maxTurnDegMs = 0.2 // generous bound on |heading change| per ms of window
)

// MetricDefinitions returns the nine metric definitions in contract order.
func MetricDefinitions() []MetricDefinition {
	def := func(id, label, formula, unit, sign, null string, lo, hi float64) MetricDefinition {
		return MetricDefinition{ID: id, Label: label, Formula: formula, Unit: unit, SignConvention: sign,
			Aggregation: meanSDText, NullRule: null, WindowSemantics: windowText, Range: [2]float64{lo, hi},
			MethodVersion: MetricMethodVersion, Provenance: []string{LabelDerived, LabelSimulationPredicted},
			Boundary: simBoundary}
	}
	defs := []MetricDefinition{
		def(MetricBackwardDistance, "Backward distance", "Σ_W max(0, −d_i), "+dispFormula, "mm", "non-negative", noNullText, 0, 1000),
		def(MetricSignedSpeed, "Signed speed", "mean_W d_i / Δt, "+dispFormula, "mm/s", "positive = forward", noNullText, -maxAbsSpeed, maxAbsSpeed),
		def(MetricResponseLatency, "Response latency",
			"first t ≥ onset in W where the primary signal stays outside baseline mean ± 2 SD (SD floored) for ≥ 30 ms, minus onset; escape: takeoff time − onset",
			"ms", "non-negative", "null when no response starts in W (or the 30 ms hold would pass the trial end: censored)", 0, 5000),
		def(MetricHeadingChange, "Heading change", "(180/π) Σ_W wrap(θ(i+1) − θ_i)", "deg", "positive = left (counter-clockwise)", noNullText, -1000, 1000),
		def(MetricStanceStability, "Stance stability",
			"fraction of W samples with ≥ 3 stance legs whose nominal foot polygon contains the centre of mass; 0 when airborne",
			"1", "higher = more stable", noNullText, 0, 1),
		def(MetricShortModeEscape, "Short-mode escape probability",
			"per run 1 if a takeoff in W follows the wing raise by < 7 ms, else 0; condition: k/n with a 95% Wilson interval",
			"probability", "none", noNullText, 0, 1),
		def(MetricVerticalDisplace, "Vertical displacement", "max_W z − z(onset)", "mm", "positive = up", noNullText, 0, 20),
		def(MetricWingRecruitment, "Wing recruitment", "mean over wings of the fraction of W with activation > 0.5", "1", "none", noNullText, 0, 1),
		def(MetricLegRecruitment, "Leg recruitment", "mean over 6 legs of the fraction of W with activation > 0.5 (stepping, pushing, grooming)", "1", "none", noNullText, 0, 1),
	}
	return defs
}

func metricDefinition(id string) MetricDefinition {
	defs := MetricDefinitions()
	return defs[slices.IndexFunc(defs, func(d MetricDefinition) bool { return d.ID == id })]
}

// validatePanelShape checks a metric list has five unique known metric IDs.
func validatePanelShape(metrics []string) *Error {
	if len(metrics) != panelSize {
		return invalidInput("metrics", "a metric panel has exactly five metric IDs", "count", len(metrics))
	}
	for i, m := range metrics {
		if !isOneOf(m, MetricIDs()) {
			return invalidInput("metrics", "unknown metric "+m, "allowed", MetricIDs())
		}
		if slices.Contains(metrics[:i], m) {
			return invalidInput("metrics", "metric "+m+" is repeated")
		}
	}
	return nil
}

// SummaryDefinition defines the response-initiation summary.
type SummaryDefinition struct {
	ID              string   `json:"id"`
	Label           string   `json:"label"`
	Formula         string   `json:"formula"`
	Unit            string   `json:"unit"`
	Aggregation     string   `json:"aggregation"`
	NullRule        string   `json:"nullRule"`
	WindowSemantics string   `json:"windowSemantics"`
	MethodVersion   string   `json:"methodVersion"`
	Provenance      []string `json:"provenance"`
	Boundary        string   `json:"boundary"`
}

// ObservationDefinition defines the threshold-crossing and censoring fields.
type ObservationDefinition struct {
	ID              string            `json:"id"`
	Label           string            `json:"label"`
	Fields          map[string]string `json:"fields"`
	WindowSemantics string            `json:"windowSemantics"`
	MethodVersion   string            `json:"methodVersion"`
	Provenance      []string          `json:"provenance"`
	Boundary        string            `json:"boundary"`
}

func responseInitiationDefinition() SummaryDefinition {
	return SummaryDefinition{ID: "response_initiation_probability", Label: "Response initiation probability",
		Formula:     "k/n where k counts runs with a non-null response_latency_ms",
		Unit:        "probability",
		Aggregation: "k, n, k/n and a 95% Wilson score interval per condition",
		NullRule:    "never null; n is the number of runs", WindowSemantics: windowText,
		MethodVersion: MetricMethodVersion, Provenance: []string{LabelDerived, LabelSimulationPredicted}, Boundary: simBoundary}
}

func responseObservationDefinition() ObservationDefinition {
	return ObservationDefinition{ID: "response_threshold_and_censoring_summary", Label: "Threshold crossing and censoring",
		Fields: map[string]string{
			"thresholdCrossing": "k/n of runs whose primary signal left baseline mean ± 2 SD at least once in W (escape: a pathway spike in W), with a Wilson interval",
			"censoredN":         "runs whose response started but could not complete before the trial ended (latency hold or takeoff past the trial end)",
		},
		WindowSemantics: windowText, MethodVersion: MetricMethodVersion,
		Provenance: []string{LabelDerived, LabelSimulationPredicted}, Boundary: simBoundary}
}
