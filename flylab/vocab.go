package flylab

import "slices"

// Behaviors the contract names, in contract order.
const (
	BehaviorBackwardWalking = "backward_walking"
	BehaviorRetreat         = "retreat"
	BehaviorForwardWalking  = "forward_walking"
	BehaviorTurning         = "turning"
	BehaviorShortModeEscape = "short_mode_escape"
	BehaviorGrooming        = "grooming"
)

// Behaviors lists the six behaviors of the contract in contract order.
func Behaviors() []string {
	return []string{BehaviorBackwardWalking, BehaviorRetreat, BehaviorForwardWalking,
		BehaviorTurning, BehaviorShortModeEscape, BehaviorGrooming}
}

// Body parts, in the fixed order used by trajectories (six legs, then wings).
const (
	LeftForeleg  = "left_foreleg"
	RightForeleg = "right_foreleg"
	LeftMidleg   = "left_midleg"
	RightMidleg  = "right_midleg"
	LeftHindleg  = "left_hindleg"
	RightHindleg = "right_hindleg"
	LeftWing     = "left_wing"
	RightWing    = "right_wing"
)

// Legs lists the six legs in trajectory order.
func Legs() []string {
	return []string{LeftForeleg, RightForeleg, LeftMidleg, RightMidleg, LeftHindleg, RightHindleg}
}

// Wings lists the two wings in trajectory order.
func Wings() []string { return []string{LeftWing, RightWing} }

// BodyParts lists every body part (legs then wings).
func BodyParts() []string { return append(Legs(), Wings()...) }

// Metric IDs (flylab behavior metrics).
const (
	MetricBackwardDistance = "backward_distance_mm"
	MetricSignedSpeed      = "signed_speed_mm_s"
	MetricResponseLatency  = "response_latency_ms"
	MetricHeadingChange    = "heading_change_deg"
	MetricStanceStability  = "stance_stability"
	MetricShortModeEscape  = "short_mode_escape_probability"
	MetricVerticalDisplace = "vertical_displacement_mm"
	MetricWingRecruitment  = "wing_recruitment"
	MetricLegRecruitment   = "leg_recruitment"
	panelSize              = 5
)

// MetricIDs lists the nine metric IDs in contract order.
func MetricIDs() []string {
	return []string{MetricBackwardDistance, MetricSignedSpeed, MetricResponseLatency,
		MetricHeadingChange, MetricStanceStability, MetricShortModeEscape,
		MetricVerticalDisplace, MetricWingRecruitment, MetricLegRecruitment}
}

// Provenance labels of the provenance manifest contract.
const (
	LabelMeasured            = "measured"
	LabelDerived             = "derived"
	LabelConnectomeInferred  = "connectome_inferred"
	LabelSimulationPredicted = "simulation_predicted"
	LabelAgentHypothesized   = "agent_hypothesized"
)

// ProvenanceLabels lists the five labels in contract order.
func ProvenanceLabels() []string {
	return []string{LabelMeasured, LabelDerived, LabelConnectomeInferred,
		LabelSimulationPredicted, LabelAgentHypothesized}
}

// AnalysisProvenance is the label set of every analysis record: summaries
// derived from simulation_predicted runs.
func AnalysisProvenance() []string { return []string{LabelDerived, LabelSimulationPredicted} }

// ComparisonProvenance is the label set of a comparison's own ranking (its
// proposal is agent_hypothesized).
func ComparisonProvenance() []string { return []string{LabelDerived, LabelSimulationPredicted} }

// Perturbations and lateralities a protocol may request.
const (
	PerturbationActivate = "activate"
	PerturbationSilence  = "silence"

	LateralityBilateral = "bilateral"
	LateralityLeft      = "left"
	LateralityRight     = "right"
	LateralityNone      = "none"
)

// Evidence kinds and roles used by catalog evidence records.
const (
	KindPerturbationEffect = "perturbation_effect"
	KindStructural         = "structural"
	KindInventory          = "inventory"
	KindMotorContext       = "motor_context"

	RoleHypothesisSupport = "hypothesis_support"
	RoleSupplemental      = "supplemental"
)

// Model coverage of a circuit: simulated by the reduced-order model, or only
// catalogued (searchable, citable, not designable).
const (
	CoverageMappedReducedOrder = "mapped_reduced_order"
	CoverageCatalogOnly        = "catalog_only"
)

func isOneOf(value string, allowed []string) bool { return slices.Contains(allowed, value) }
