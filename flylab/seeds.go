package flylab

// Seed policy constants: replicate r of every condition uses the same
// seeds (common random numbers), so arms differ only by drive.
const (
	replicateSeedStride          = 37
	trajectorySeedOffset         = 104729
	illustrativeTrajectoryOffset = 130363
)

// SeedPolicy documents how seeds are derived and used.
type SeedPolicy struct {
	Version                      string `json:"version"`
	Generator                    string `json:"generator"`
	Design                       string `json:"design"`
	PairingRule                  string `json:"pairingRule"`
	ReplicateFormula             string `json:"replicateFormula"`
	TrajectoryFormula            string `json:"trajectoryFormula"`
	IllustrativeFormula          string `json:"illustrativeTrajectoryFormula"`
	ReplicateStride              int64  `json:"replicateStride"`
	TrajectoryOffset             int64  `json:"trajectoryOffset"`
	IllustrativeTrajectoryOffset int64  `json:"illustrativeTrajectoryOffset"`
}

// CurrentSeedPolicy returns the seed policy of this model version.
func CurrentSeedPolicy() SeedPolicy {
	return SeedPolicy{
		Version: SeedPolicyVersion, Generator: "splitmix64", Design: "common_random_numbers_by_replicate",
		PairingRule:         "Replicate r uses the same trajectory seed in every condition arm, so all random draws are shared and arms differ only by effective drive.",
		ReplicateFormula:    "baseSeed + 37 * replicateIndex",
		TrajectoryFormula:   "replicateSeed + 104729",
		IllustrativeFormula: "baseSeed + 130363 (reserved for an illustrative replay; analysis never uses it)",
		ReplicateStride:     replicateSeedStride, TrajectoryOffset: trajectorySeedOffset,
		IllustrativeTrajectoryOffset: illustrativeTrajectoryOffset,
	}
}

// SeedManifest lists every seed a batch will use; it is hashed with the
// protocol into the approval binding.
type SeedManifest struct {
	BaseSeed               int64           `json:"base_seed"`
	SeedPolicy             SeedPolicy      `json:"seed_policy"`
	ConditionCount         int             `json:"condition_count"`
	ReplicatesPerCondition int             `json:"replicates_per_condition"`
	Conditions             []SeedCondition `json:"conditions"`
	// Provenance is omitted by manifests stored before it existed, so
	// their approval hashes still verify.
	Provenance []string `json:"provenance,omitempty"`
}

// SeedCondition holds one condition's replicate seeds.
type SeedCondition struct {
	ConditionID    string          `json:"condition_id"`
	ConditionIndex int             `json:"condition_index"`
	TrajectorySeed int64           `json:"trajectory_seed"`
	Replicates     []SeedReplicate `json:"replicates"`
}

// SeedReplicate is one replicate's seeds.
type SeedReplicate struct {
	ReplicateIndex int   `json:"replicate_index"`
	Seed           int64 `json:"seed"`
	TrajectorySeed int64 `json:"trajectory_seed"`
}

// NewSeedManifest derives the seed manifest of a protocol.
func NewSeedManifest(p Protocol) SeedManifest {
	m := SeedManifest{BaseSeed: p.Seed, SeedPolicy: CurrentSeedPolicy(),
		ConditionCount: len(p.Conditions), ReplicatesPerCondition: p.Replicates, Provenance: []string{LabelDerived}}
	for ci, c := range p.Conditions {
		sc := SeedCondition{ConditionID: c.ID, ConditionIndex: ci, TrajectorySeed: p.Seed + illustrativeTrajectoryOffset}
		for r := range p.Replicates {
			seed := p.Seed + replicateSeedStride*int64(r)
			sc.Replicates = append(sc.Replicates, SeedReplicate{ReplicateIndex: r, Seed: seed, TrajectorySeed: seed + trajectorySeedOffset})
		}
		m.Conditions = append(m.Conditions, sc)
	}
	return m
}
