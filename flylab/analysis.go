package flylab

import "slices"

// AnalysisResult carries the data fields of analyze_fly_behavior except
// next_action.
type AnalysisResult struct {
	Analysis                             Analysis              `json:"analysis"`
	MetricDefinitions                    []MetricDefinition    `json:"metric_definitions"`
	ResponseInitiationSummaryDefinition  SummaryDefinition     `json:"response_initiation_summary_definition"`
	ResponseObservationSummaryDefinition ObservationDefinition `json:"response_observation_summary_definition"`
	PerRunResults                        []PerRunResult        `json:"per_run_results"`
	UnitBoundary                         string                `json:"unit_boundary"`
	// Provenance labels the result's own fields (unit_boundary).
	Provenance []string `json:"provenance"`
}

// Analysis is the saved five-metric analysis of one batch.
type Analysis struct {
	ID                  string             `json:"id"`
	BatchID             string             `json:"batchId"`
	BatchRunContentHash string             `json:"batchRunContentHash"`
	ExperimentID        string             `json:"experimentId"`
	TargetCircuitID     string             `json:"targetCircuitId"`
	MotorMapID          string             `json:"motorMapId"`
	Behavior            string             `json:"behavior"`
	Perturbation        string             `json:"perturbation"`
	ActivationLevel     float64            `json:"activationLevel"`
	PrimaryLaterality   string             `json:"primaryLaterality"`
	Replicates          int                `json:"replicates"`
	Metrics             []string           `json:"metrics"`
	Conditions          []ConditionSummary `json:"conditions"`
	WindowMs            WindowMs           `json:"windowMs"`
	MethodVersion       string             `json:"methodVersion"`
	Provenance          []string           `json:"provenance"`
	Warning             string             `json:"warning"`
}

// WindowMs is the analysis window W.
type WindowMs struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// ConditionSummary summarizes one condition's runs.
type ConditionSummary struct {
	ConditionID        string          `json:"conditionId"`
	Label              string          `json:"label"`
	Kind               string          `json:"kind"`
	Laterality         string          `json:"laterality"`
	N                  int             `json:"n"`
	Metrics            []MetricSummary `json:"metrics"`
	ResponseInitiation Proportion      `json:"responseInitiation"`
	ThresholdCrossing  Proportion      `json:"thresholdCrossing"`
	CensoredN          int             `json:"censoredN"`
}

// MetricSummary is one metric over a condition's runs. Probability gives
// the Wilson interval of a probability metric; DifferenceFromSham is this
// condition's mean minus the sham mean (nil when either is undefined).
type MetricSummary struct {
	Metric             string      `json:"metric"`
	Unit               string      `json:"unit"`
	N                  int         `json:"n"`
	NullN              int         `json:"nullN"`
	Mean               *float64    `json:"mean"`
	SD                 *float64    `json:"sd"`
	Probability        *Proportion `json:"probability,omitempty"`
	DifferenceFromSham *float64    `json:"differenceFromSham"`
}

// PerRunResult is one run's panel values and response flags.
type PerRunResult struct {
	RunID            string        `json:"runId"`
	ConditionID      string        `json:"conditionId"`
	ReplicateIndex   int           `json:"replicateIndex"`
	Seed             int64         `json:"seed"`
	TrajectoryID     string        `json:"trajectoryId"`
	Metrics          []MetricValue `json:"metrics"`
	ResponseStarted  bool          `json:"responseInitiated"`
	ThresholdCrossed bool          `json:"thresholdCrossed"`
	Censored         bool          `json:"censored"`
	Provenance       []string      `json:"provenance"`
}

// MetricValue is one metric value of one run (nil = null).
type MetricValue struct {
	Metric string   `json:"metric"`
	Value  *float64 `json:"value"`
	Unit   string   `json:"unit"`
}

// Analyze computes the motor map's five-metric panel for a batch from each
// run's trajectory. metrics must be exactly that panel, in any order:
// INVALID_INPUT for a malformed list, METRIC_UNAVAILABLE for a metric
// outside the panel. The batch hash is verified first (EVIDENCE_MISMATCH),
// and a batch with missing runs is INCOMPLETE_BATCH.
func Analyze(batch Batch, metrics []string) (AnalysisResult, error) {
	if err := validatePanelShape(metrics); err != nil {
		return AnalysisResult{}, err
	}
	panel := batch.MotorMap.RecommendedMetrics
	for _, m := range metrics {
		if !slices.Contains(panel, m) {
			return AnalysisResult{}, newError(CodeMetricUnavailable, m+" is not in the motor map's panel",
				"metric", m, "panel", panel)
		}
	}
	if err := checkBatchComplete(batch); err != nil {
		return AnalysisResult{}, err
	}
	if err := VerifyBatch(batch); err != nil {
		return AnalysisResult{}, err
	}
	p := batch.Protocol
	program := batch.MotorMap.MotorProgram
	res := AnalysisResult{MetricDefinitions: []MetricDefinition{},
		ResponseInitiationSummaryDefinition:  responseInitiationDefinition(),
		ResponseObservationSummaryDefinition: responseObservationDefinition(),
		UnitBoundary:                         Model().UnitBoundary, Provenance: []string{LabelSimulationPredicted}}
	for _, m := range panel {
		res.MetricDefinitions = append(res.MetricDefinitions, metricDefinition(m))
	}
	var summaries []ConditionSummary
	for _, cr := range batch.ConditionRuns {
		var perRun []runMetrics
		for _, run := range cr.Replicates {
			rm := computeRunMetrics(run, p, program)
			perRun = append(perRun, rm)
			res.PerRunResults = append(res.PerRunResults, perRunResult(run, rm, panel))
		}
		summaries = append(summaries, summarizeCondition(cr, perRun, panel))
	}
	addDifferencesFromSham(summaries)
	a := Analysis{
		BatchID: batch.ID, BatchRunContentHash: batch.RunContentHash, ExperimentID: batch.ExperimentID,
		TargetCircuitID: batch.TargetCircuitID, MotorMapID: batch.MotorMap.ID, Behavior: batch.Behavior,
		Perturbation: p.Perturbation, ActivationLevel: p.ActivationLevel, PrimaryLaterality: p.PrimaryLaterality,
		Replicates: p.Replicates, Metrics: slices.Clone(panel), Conditions: summaries,
		WindowMs:      WindowMs{Start: p.OnsetMs, End: p.OnsetMs + p.DurationMs},
		MethodVersion: MetricMethodVersion, Provenance: AnalysisProvenance(),
		Warning: "Simulation-predicted summaries of a reduced-order model; not wet-lab evidence.",
	}
	a.ID = contentID("analysis", map[string]any{"batchRunContentHash": batch.RunContentHash, "metrics": panel,
		"methodVersion": MetricMethodVersion})
	res.Analysis = a
	return res, nil
}

func checkBatchComplete(b Batch) error {
	if b.Status != StatusComplete || len(b.ConditionRuns) != len(b.Protocol.Conditions) {
		return newError(CodeIncompleteBatch, "batch is not complete", "status", b.Status)
	}
	want := b.Protocol.TrialDurationMs/sampleIntervalMs + 1
	for _, cr := range b.ConditionRuns {
		if len(cr.Replicates) != b.Protocol.Replicates {
			return newError(CodeIncompleteBatch, "condition "+cr.ConditionID+" is missing runs",
				"runs", len(cr.Replicates), "replicates", b.Protocol.Replicates)
		}
		for _, r := range cr.Replicates {
			tr := r.Trajectory
			ok := tr.SampleIntervalMs == sampleIntervalMs && tr.Len() == want && len(tr.XMm) == want &&
				len(tr.YMm) == want && len(tr.ZMm) == want && len(tr.HeadingDeg) == want &&
				len(tr.Legs) == 6 && len(tr.Wings) == 2
			for _, l := range tr.Legs {
				ok = ok && len(l.Activation) == want && len(l.Stance) == want
			}
			for _, w := range tr.Wings {
				ok = ok && len(w.Activation) == want
			}
			if !ok {
				return newError(CodeIncompleteBatch, "run "+r.ID+" has an incomplete trajectory")
			}
		}
	}
	return nil
}

func perRunResult(run RunResult, rm runMetrics, panel []string) PerRunResult {
	r := PerRunResult{RunID: run.ID, ConditionID: run.ConditionID, ReplicateIndex: run.ReplicateIndex, Seed: run.Seed,
		TrajectoryID: run.TrajectoryID, ResponseStarted: rm.responseStarted, ThresholdCrossed: rm.thresholdCrossed,
		Censored: rm.censored, Provenance: []string{LabelSimulationPredicted}}
	for _, m := range panel {
		r.Metrics = append(r.Metrics, MetricValue{Metric: m, Value: rm.values[m], Unit: metricDefinition(m).Unit})
	}
	return r
}

func summarizeCondition(cr ConditionRun, runs []runMetrics, panel []string) ConditionSummary {
	s := ConditionSummary{ConditionID: cr.ConditionID, Label: cr.Label, Kind: cr.Kind, Laterality: cr.Laterality, N: len(runs)}
	started, crossed := 0, 0
	for _, r := range runs {
		if r.responseStarted {
			started++
		}
		if r.thresholdCrossed {
			crossed++
		}
		if r.censored {
			s.CensoredN++
		}
	}
	s.ResponseInitiation, s.ThresholdCrossing = wilson(started, len(runs)), wilson(crossed, len(runs))
	for _, m := range panel {
		ms := MetricSummary{Metric: m, Unit: metricDefinition(m).Unit}
		var values []float64
		for _, r := range runs {
			if v := r.values[m]; v != nil {
				values = append(values, *v)
			} else {
				ms.NullN++
			}
		}
		ms.N = len(values)
		if ms.N > 0 {
			mean, sd := meanSD(values)
			mean, sd = round6(mean), round6(sd)
			ms.Mean, ms.SD = &mean, &sd
		}
		if m == MetricShortModeEscape {
			k := 0
			for _, v := range values {
				if v == 1 {
					k++
				}
			}
			p := wilson(k, len(values))
			ms.Probability = &p
		}
		s.Metrics = append(s.Metrics, ms)
	}
	return s
}

func addDifferencesFromSham(summaries []ConditionSummary) {
	sham := slices.IndexFunc(summaries, func(s ConditionSummary) bool { return s.Kind == ConditionKindSham })
	if sham < 0 {
		return
	}
	for ci := range summaries {
		for mi := range summaries[ci].Metrics {
			own, ref := summaries[ci].Metrics[mi].Mean, summaries[sham].Metrics[mi].Mean
			if own != nil && ref != nil {
				d := round6(*own - *ref)
				summaries[ci].Metrics[mi].DifferenceFromSham = &d
			}
		}
	}
}
