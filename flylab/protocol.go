package flylab

import (
	"math"
	"slices"
	"strings"
)

// DesignRequest is the input of design_stimulation_trial (the session and
// revision fields stay in the tool layer).
type DesignRequest struct {
	HypothesisID       string  `json:"hypothesis_id"`
	TargetCircuitID    string  `json:"target_circuit_id"`
	Perturbation       string  `json:"perturbation"`
	Laterality         string  `json:"laterality"`
	ActivationLevel    float64 `json:"activation_level"`
	OnsetMs            int     `json:"onset_ms"`
	DurationMs         int     `json:"duration_ms"`
	TrialDurationMs    int     `json:"trial_duration_ms"`
	Replicates         int     `json:"replicates"`
	IncludeBaseline    bool    `json:"include_baseline"`
	IncludeShamControl bool    `json:"include_sham_control"`
	Seed               int64   `json:"seed"`
}

// Protocol is the approved, hashed snapshot of an experiment: everything
// the simulator needs and nothing it does not.
type Protocol struct {
	ExperimentID        string            `json:"experimentId"`
	HypothesisID        string            `json:"hypothesisId"`
	TargetCircuitID     string            `json:"targetCircuitId"`
	Behavior            string            `json:"behavior"`
	MotorMapID          string            `json:"motorMapId"`
	Perturbation        string            `json:"perturbation"`
	ActivationLevel     float64           `json:"activationLevel"`
	PrimaryLaterality   string            `json:"primaryLaterality"`
	OnsetMs             int               `json:"onsetMs"`
	DurationMs          int               `json:"durationMs"`
	TrialDurationMs     int               `json:"trialDurationMs"`
	Replicates          int               `json:"replicates"`
	Seed                int64             `json:"seed"`
	SeedPolicy          SeedPolicy        `json:"seedPolicy"`
	MetricMethodVersion string            `json:"metricMethodVersion"`
	ModelVersion        string            `json:"modelVersion"`
	Conditions          []Condition       `json:"conditions"`
	DriveDerivations    []DriveDerivation `json:"driveDerivations"`
	Assumptions         []string          `json:"assumptions"`
}

// Condition is one arm of the trial.
type Condition struct {
	ID                  string  `json:"id"`
	Label               string  `json:"label"`
	Kind                string  `json:"kind"`
	Laterality          string  `json:"laterality"`
	LightOn             bool    `json:"lightOn"`
	NominalControlLevel float64 `json:"nominalControlLevel"`
	ExpectedModelEffect string  `json:"expectedModelEffect"`
}

// Condition kinds and the fixed control condition IDs.
const (
	ConditionKindBaseline     = "baseline"
	ConditionKindSham         = "sham"
	ConditionKindPerturbation = "perturbation"
	ConditionBaselineID       = "condition_baseline"
	ConditionShamID           = "condition_sham"
)

// Experiment is the record design_stimulation_trial returns: the protocol
// plus the motor map and model it runs against. It starts unapproved.
type Experiment struct {
	ID string `json:"id"`
	Protocol
	MotorMap   MotorMap      `json:"motorMap"`
	Model      ModelManifest `json:"model"`
	Approved   bool          `json:"approved"`
	Provenance []string      `json:"provenance"`
}

// Design is a designed trial with its seed manifest and both hashes the
// operator approval binds.
type Design struct {
	Experiment       Experiment   `json:"experiment"`
	SeedManifest     SeedManifest `json:"seed_manifest"`
	ProtocolHash     string       `json:"protocol_hash"`
	SeedManifestHash string       `json:"seed_manifest_hash"`
}

// DesignProtocol validates a request against the catalog and builds the
// controlled trial: baseline, sham and the requested perturbation arm, plus
// left-only and right-only arms for bilateral designs of circuits that
// support them. Errors: INVALID_INPUT, NOT_FOUND, UNSUPPORTED_TARGET,
// INVALID_TIMING.
func DesignProtocol(req DesignRequest) (Design, error) {
	circuit, err := validateDesignRequest(req)
	if err != nil {
		return Design{}, err
	}
	p := Protocol{
		HypothesisID: req.HypothesisID, TargetCircuitID: circuit.ID, Behavior: circuit.PrimaryBehavior(),
		MotorMapID: circuit.MotorMapID, Perturbation: req.Perturbation, ActivationLevel: req.ActivationLevel,
		PrimaryLaterality: req.Laterality, OnsetMs: req.OnsetMs, DurationMs: req.DurationMs,
		TrialDurationMs: req.TrialDurationMs, Replicates: req.Replicates, Seed: req.Seed,
		SeedPolicy: CurrentSeedPolicy(), MetricMethodVersion: MetricMethodVersion, ModelVersion: ModelVersion,
	}
	p.Conditions = trialConditions(circuit, req)
	for _, c := range p.Conditions {
		p.DriveDerivations = append(p.DriveDerivations, deriveDrive(circuit.MotorMap, p, c))
	}
	p.Assumptions = protocolAssumptions(circuit)
	p.ExperimentID = contentID("exp", map[string]any{"request": req, "model": ModelVersion, "catalog": CatalogVersion()})
	seeds := NewSeedManifest(p)
	protocolHash, err := ProtocolHash(p, seeds)
	if err != nil {
		return Design{}, err
	}
	seedHash, err := SeedManifestHash(seeds)
	if err != nil {
		return Design{}, err
	}
	exp := Experiment{ID: p.ExperimentID, Protocol: p, MotorMap: cloneMotorMap(circuit.MotorMap), Model: ModelFor(circuit),
		Provenance: []string{LabelAgentHypothesized}}
	return Design{Experiment: exp, SeedManifest: seeds, ProtocolHash: protocolHash, SeedManifestHash: seedHash}, nil
}

func validateDesignRequest(req DesignRequest) (Circuit, error) {
	if id := strings.TrimSpace(req.HypothesisID); id == "" || len(id) > 100 {
		return Circuit{}, invalidInput("hypothesis_id", "hypothesis_id must be 1 to 100 characters")
	}
	if !isOneOf(req.Perturbation, []string{PerturbationActivate, PerturbationSilence}) {
		return Circuit{}, invalidInput("perturbation", "perturbation must be activate or silence")
	}
	if !isOneOf(req.Laterality, []string{LateralityBilateral, LateralityLeft, LateralityRight}) {
		return Circuit{}, invalidInput("laterality", "laterality must be bilateral, left or right")
	}
	if math.IsNaN(req.ActivationLevel) || req.ActivationLevel < 0 || req.ActivationLevel > 1 {
		return Circuit{}, invalidInput("activation_level", "activation_level must be within [0, 1]")
	}
	if req.Replicates < 1 || req.Replicates > 20 {
		return Circuit{}, invalidInput("replicates", "replicates must be 1 to 20")
	}
	if !req.IncludeBaseline || !req.IncludeShamControl {
		return Circuit{}, invalidInput("include_baseline", "baseline and sham controls are required")
	}
	if req.Seed < 0 || req.Seed > math.MaxInt32 {
		return Circuit{}, invalidInput("seed", "seed must be 0 to 2147483647")
	}
	if err := validateTiming(req.OnsetMs, req.DurationMs, req.TrialDurationMs); err != nil {
		return Circuit{}, err
	}
	circuit, err := CircuitByID(req.TargetCircuitID)
	if err != nil {
		return Circuit{}, err
	}
	if circuit.ModelCoverage != CoverageMappedReducedOrder {
		return Circuit{}, newError(CodeUnsupportedTarget, circuit.ID+" is catalog-only and cannot be simulated",
			"circuit_id", circuit.ID, "model_coverage", circuit.ModelCoverage)
	}
	if !slices.Contains(circuit.MotorMap.SupportedPerturbations, req.Perturbation) {
		return Circuit{}, newError(CodeUnsupportedTarget, circuit.ID+" does not support "+req.Perturbation,
			"supported", circuit.MotorMap.SupportedPerturbations)
	}
	if !slices.Contains(circuit.MotorMap.SupportedLaterality, req.Laterality) {
		return Circuit{}, newError(CodeUnsupportedTarget, circuit.ID+" does not support "+req.Laterality+" stimulation",
			"supported", circuit.MotorMap.SupportedLaterality)
	}
	return circuit, nil
}

func validateTiming(onset, duration, trial int) error {
	switch {
	case onset < 0 || onset > 5000:
		return newError(CodeInvalidTiming, "onset_ms must be 0 to 5000", "field", "onset_ms")
	case duration < 50 || duration > 5000:
		return newError(CodeInvalidTiming, "duration_ms must be 50 to 5000", "field", "duration_ms")
	case trial < 1000 || trial > 10000:
		return newError(CodeInvalidTiming, "trial_duration_ms must be 1000 to 10000", "field", "trial_duration_ms")
	case onset+duration > trial:
		return newError(CodeInvalidTiming, "the stimulation window must end within the trial",
			"onset_ms", onset, "duration_ms", duration, "trial_duration_ms", trial)
	}
	return nil
}

func trialConditions(c Circuit, req DesignRequest) []Condition {
	activate := req.Perturbation == PerturbationActivate
	effect := func(kind string) string {
		switch {
		case kind == ConditionKindBaseline && activate:
			return "no_circuit_drive"
		case kind == ConditionKindBaseline:
			return "reference_stimulus_drive"
		case kind == ConditionKindSham && activate:
			return "zero_effect_sham"
		case kind == ConditionKindSham:
			return "reference_drive_sham"
		case activate:
			return "activation_increases_drive"
		}
		return "silencing_reduces_reference_drive"
	}
	arm := func(laterality string) Condition {
		return Condition{ID: "condition_" + laterality, Label: laterality + " " + req.Perturbation,
			Kind: ConditionKindPerturbation, Laterality: laterality, LightOn: true,
			NominalControlLevel: req.ActivationLevel, ExpectedModelEffect: effect(ConditionKindPerturbation)}
	}
	conds := []Condition{
		{ID: ConditionBaselineID, Label: "baseline (no light)", Kind: ConditionKindBaseline, Laterality: LateralityNone,
			ExpectedModelEffect: effect(ConditionKindBaseline)},
		{ID: ConditionShamID, Label: "sham (light, no effector)", Kind: ConditionKindSham, Laterality: req.Laterality,
			LightOn: true, NominalControlLevel: req.ActivationLevel, ExpectedModelEffect: effect(ConditionKindSham)},
		arm(req.Laterality),
	}
	lat := c.MotorMap.SupportedLaterality
	if req.Laterality == LateralityBilateral && slices.Contains(lat, LateralityLeft) && slices.Contains(lat, LateralityRight) {
		conds = append(conds, arm(LateralityLeft), arm(LateralityRight))
	}
	return conds
}

func protocolAssumptions(c Circuit) []string {
	return []string{
		"Activation level is a unitless model control, not light power or temperature.",
		"Sham arms pass through the same drive derivation with an effector factor of 0; baseline arms have no light.",
		"Silencing designs present the circuit's reference stimulus (" + c.MotorMap.Drive.ReferenceStimulus + ") in every arm at a reference drive of 0.72 (assumption) and scale it by (1 - suppression).",
		"Unilateral stimulation recruits one hemisphere: channel gains come from the motor map's unilateral list; turn sign left positive.",
		c.MotorMap.Drive.Note,
		"Every model parameter is listed in model.parameters with its source or marked as an assumption.",
	}
}
