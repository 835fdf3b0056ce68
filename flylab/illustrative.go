package flylab

// IllustrativeSamples is the length of a condition's illustrative
// trajectory, as in the original FlyLab page.
const IllustrativeSamples = 80

// IllustrativeTrajectory is one condition's replay illustration: a run
// with the condition's reserved illustrative seed, thinned to at most
// IllustrativeSamples samples. It is compatibility-only: analysis never
// reads it, and the per-run trajectories stay authoritative.
type IllustrativeTrajectory struct {
	ID             string     `json:"id"`
	ArtifactType   string     `json:"artifact_type"`
	ConditionID    string     `json:"conditionId"`
	TrajectorySeed int64      `json:"trajectorySeed"`
	Role           string     `json:"role"`
	SourceSamples  int        `json:"sourceSamples"`
	Trajectory     Trajectory `json:"trajectory"`
	Provenance     []string   `json:"provenance"`
	Boundary       string     `json:"boundary"`
}

func illustrate(p Protocol, cond Condition, sc SeedCondition, spec runSpec) *IllustrativeTrajectory {
	full, _ := simulateRun(spec, newSplitMix64(sc.TrajectorySeed))
	return &IllustrativeTrajectory{
		ID: contentID("trajectory", map[string]any{"experimentId": p.ExperimentID, "conditionId": cond.ID,
			"trajectorySeed": sc.TrajectorySeed, "role": "illustrative", "modelVersion": ModelVersion}),
		ArtifactType: "illustrative_trajectory", ConditionID: cond.ID, TrajectorySeed: sc.TrajectorySeed,
		Role: "illustrative_compatibility_only", SourceSamples: full.Len(), Trajectory: thin(full, IllustrativeSamples),
		Provenance: []string{LabelSimulationPredicted},
		Boundary:   "Illustration only, from the seed policy's reserved illustrative seed; excluded from analysis and from runHash.",
	}
}

// thin keeps at most n evenly spaced samples, always the first and last.
func thin(t Trajectory, n int) Trajectory {
	total := t.Len()
	if total <= n {
		return t
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i * (total - 1) / (n - 1)
	}
	pick := func(col []float64) []float64 {
		out := make([]float64, n)
		for i, j := range idx {
			out[i] = col[j]
		}
		return out
	}
	out := Trajectory{SampleIntervalMs: t.SampleIntervalMs, TimeMs: pick(t.TimeMs), XMm: pick(t.XMm),
		YMm: pick(t.YMm), ZMm: pick(t.ZMm), HeadingDeg: pick(t.HeadingDeg)}
	for _, leg := range t.Legs {
		stance := make([]bool, n)
		for i, j := range idx {
			stance[i] = leg.Stance[j]
		}
		out.Legs = append(out.Legs, LegTrack{BodyPart: leg.BodyPart, Activation: pick(leg.Activation), Stance: stance})
	}
	for _, w := range t.Wings {
		out.Wings = append(out.Wings, WingTrack{BodyPart: w.BodyPart, Activation: pick(w.Activation)})
	}
	return out
}
