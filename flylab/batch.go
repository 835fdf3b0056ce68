package flylab

// Trajectory is one run's authoritative state trajectory, stored by column
// and sampled every SampleIntervalMs (the integrator steps every 1 ms).
// Heading is degrees in (−180, 180], left positive; z is height above the
// ground. Legs and wings are in the order of Legs() and Wings().
type Trajectory struct {
	SampleIntervalMs int         `json:"sampleIntervalMs"`
	TimeMs           []float64   `json:"tMs"`
	XMm              []float64   `json:"xMm"`
	YMm              []float64   `json:"yMm"`
	ZMm              []float64   `json:"zMm"`
	HeadingDeg       []float64   `json:"headingDeg"`
	Legs             []LegTrack  `json:"legs"`
	Wings            []WingTrack `json:"wings"`
}

// LegTrack is one leg's activation (0..1) and stance flag per sample.
type LegTrack struct {
	BodyPart   string    `json:"bodyPart"`
	Activation []float64 `json:"activation"`
	Stance     []bool    `json:"stance"`
}

// WingTrack is one wing's activation (0..1) per sample.
type WingTrack struct {
	BodyPart   string    `json:"bodyPart"`
	Activation []float64 `json:"activation"`
}

// Len is the number of samples.
func (t Trajectory) Len() int { return len(t.TimeMs) }

// EventTimeline lists the model events of one run; a nil time means the
// event did not happen before the trial ended.
type EventTimeline struct {
	StimulusOnsetMs      int     `json:"stimulusOnsetMs"`
	StimulusOffsetMs     int     `json:"stimulusOffsetMs"`
	ResponseInitiationMs *int    `json:"responseInitiationMs"`
	ResponseRule         string  `json:"responseRule"`
	GiantFiberSpikeMs    *int    `json:"giantFiberSpikeMs"`
	ParallelSpikeMs      *int    `json:"parallelSpikeMs"`
	WingRaiseMs          *int    `json:"wingRaiseMs"`
	TakeoffMs            *int    `json:"takeoffMs"`
	TakeoffMode          string  `json:"takeoffMode"`
	EscapeCensored       bool    `json:"escapeCensored"`
	Events               []Event `json:"events"`
}

// Event is one timeline entry, ordered by time then name.
type Event struct {
	Name string `json:"name"`
	TMs  int    `json:"tMs"`
}

// RunResult is one simulated replicate of one condition.
type RunResult struct {
	ID             string        `json:"id"`
	Status         string        `json:"status"`
	ConditionID    string        `json:"conditionId"`
	ReplicateIndex int           `json:"replicateIndex"`
	Seed           int64         `json:"seed"`
	TrajectorySeed int64         `json:"trajectorySeed"`
	EventTimeline  EventTimeline `json:"eventTimeline"`
	TrajectoryID   string        `json:"trajectoryId"`
	TrajectoryRole string        `json:"trajectoryRole"`
	Trajectory     Trajectory    `json:"trajectory"`
	Provenance     []string      `json:"provenance"`
}

// ConditionRun groups one condition's replicates with its drive derivation.
type ConditionRun struct {
	ConditionID       string          `json:"conditionId"`
	Label             string          `json:"label"`
	Kind              string          `json:"kind"`
	Laterality        string          `json:"laterality"`
	Status            string          `json:"status"`
	DriveDerivation   DriveDerivation `json:"driveDerivation"`
	RunIDs            []string        `json:"runIds"`
	Replicates        []RunResult     `json:"replicates"`
	IllustrativeRunID string          `json:"illustrativeRunId"`
	// IllustrativeTrajectory is absent from batches stored before it
	// existed, so their content hashes still verify.
	IllustrativeTrajectory *IllustrativeTrajectory `json:"illustrativeTrajectory,omitempty"`
}

// Batch is the output of run_fly_simulation minus the approval record and
// next_action, which the tool layer adds.
type Batch struct {
	ID                          string         `json:"id"`
	ExperimentID                string         `json:"experimentId"`
	TargetCircuitID             string         `json:"targetCircuitId"`
	Behavior                    string         `json:"behavior"`
	MotorMap                    MotorMap       `json:"motorMap"`
	Status                      string         `json:"status"`
	ConditionRuns               []ConditionRun `json:"conditionRuns"`
	RunHash                     string         `json:"runHash"`
	RunHashScope                string         `json:"runHashScope"`
	RunHashSerialization        string         `json:"runHashSerialization"`
	RunContentHash              string         `json:"runContentHash"`
	RunContentHashScope         string         `json:"runContentHashScope"`
	RunContentHashSerialization string         `json:"runContentHashSerialization"`
	RunContentHashFields        []string       `json:"runContentHashFields"`
	Protocol                    Protocol       `json:"protocol"`
	SeedManifest                SeedManifest   `json:"seedManifest"`
	Model                       ModelManifest  `json:"model"`
	Provenance                  []string       `json:"provenance"`
	Boundary                    string         `json:"boundary"`
}

// StatusComplete is the status of a finished run or batch (the simulator
// finishes every run it starts, so it is the only one).
const StatusComplete = "complete"

type batchContent struct {
	Protocol      Protocol       `json:"protocol"`
	Model         ModelManifest  `json:"model"`
	ConditionRuns []ConditionRun `json:"conditionRuns"`
}

// VerifyBatch recomputes both hashes of a batch (for example one loaded
// from storage) and returns EVIDENCE_MISMATCH if either differs.
func VerifyBatch(b Batch) error {
	content, err := ContentHash(batchContent{Protocol: b.Protocol, Model: b.Model, ConditionRuns: b.ConditionRuns})
	if err != nil {
		return err
	}
	if content != b.RunContentHash {
		return newError(CodeEvidenceMismatch, "batch content does not match runContentHash",
			"expected", b.RunContentHash, "actual", content)
	}
	if legacy, ok := verifyRunHash(b.RunHash, b.ConditionRuns); !ok {
		return newError(CodeEvidenceMismatch, "run lineage does not match runHash", "expected", b.RunHash, "actual", legacy)
	}
	return nil
}
