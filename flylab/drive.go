package flylab

import "strconv"

// Drive channels of the reduced-order model.
const (
	channelForward        = "forward"
	channelBackward       = "backward"
	channelTurn           = "turn" // signed: positive turns left
	channelGroom          = "groom"
	channelGiantFiber     = "giant_fiber"
	channelParallelEscape = "parallel_escape"
)

// DriveDerivation shows how one condition's protocol settings become the
// effective drive of each channel, with the formula and every factor.
type DriveDerivation struct {
	ConditionID         string         `json:"conditionId"`
	Kind                string         `json:"kind"`
	Perturbation        string         `json:"perturbation"`
	NominalControlLevel float64        `json:"nominalControlLevel"`
	Laterality          string         `json:"laterality"`
	LightOn             bool           `json:"lightOn"`
	EffectorFactor      float64        `json:"effectorFactor"`
	SuppressionFraction float64        `json:"suppressionFraction"`
	ReferenceStimulus   string         `json:"referenceStimulus,omitempty"`
	Channels            []ChannelDrive `json:"channels"`
	Formula             string         `json:"formula"`
	WindowMs            [2]int         `json:"windowMs"`
	Provenance          string         `json:"provenance"`
	Boundary            string         `json:"boundary"`
}

// ChannelDrive is one channel's effective drive during the window.
type ChannelDrive struct {
	Channel   string  `json:"channel"`
	Gain      float64 `json:"gain"`
	SideSign  float64 `json:"sideSign"`
	Reference float64 `json:"reference"`
	Effective float64 `json:"effective"`
}

// deriveDrive computes a condition's channel drives.
//
// Activation designs: effective = level × effector × gain × sideSign, with
// effector 1 for the perturbation arm and 0 for sham and baseline; gains
// from the bilateral or unilateral list by the arm's laterality.
// Silencing designs: effective = reference × (1 − s), s = level × effector
// × (1 for bilateral, 0.5 for one side); every arm gets the reference,
// and channels marked External (other pathways) are not suppressed.
func deriveDrive(m MotorMap, p Protocol, c Condition) DriveDerivation {
	effector := 0.0
	if c.Kind == ConditionKindPerturbation {
		effector = 1
	}
	d := DriveDerivation{ConditionID: c.ID, Kind: c.Kind, Perturbation: p.Perturbation,
		NominalControlLevel: c.NominalControlLevel, Laterality: c.Laterality, LightOn: c.LightOn,
		EffectorFactor: effector, WindowMs: [2]int{p.OnsetMs, p.OnsetMs + p.DurationMs},
		Provenance: LabelAgentHypothesized,
		Boundary:   "Model input derived from the protocol and assumed gains; not a measured neural drive."}
	if p.Perturbation == PerturbationActivate {
		gains := m.Drive.Bilateral
		if c.Laterality == LateralityLeft || c.Laterality == LateralityRight {
			gains = m.Drive.Unilateral
		}
		for _, g := range gains {
			sign := sideSign(g, c.Laterality)
			d.Channels = append(d.Channels, ChannelDrive{Channel: g.Channel, Gain: g.Gain, SideSign: sign,
				Effective: roundTo(c.NominalControlLevel*effector*g.Gain*sign, 1e6)})
		}
		d.Formula = "effective = level(" + fmtFloat(c.NominalControlLevel) + ") × effector(" + fmtFloat(effector) + ") × gain × sideSign"
		return d
	}
	lateralShare := 1.0
	if c.Laterality == LateralityLeft || c.Laterality == LateralityRight {
		lateralShare = 0.5
	}
	d.SuppressionFraction = roundTo(c.NominalControlLevel*effector*lateralShare, 1e6)
	d.ReferenceStimulus = m.Drive.ReferenceStimulus
	for _, g := range m.Drive.SilencingReference {
		kept := 1 - d.SuppressionFraction
		if g.External {
			kept = 1
		}
		d.Channels = append(d.Channels, ChannelDrive{Channel: g.Channel, Gain: g.Gain, SideSign: 1, Reference: g.Gain,
			Effective: roundTo(g.Gain*kept, 1e6)})
	}
	d.Formula = "effective = reference × (1 − s), s = level(" + fmtFloat(c.NominalControlLevel) + ") × effector(" +
		fmtFloat(effector) + ") × lateral share(" + fmtFloat(lateralShare) + ")"
	return d
}

// sideSign is +1 or −1 for the turn channel (left positive), 1 otherwise.
func sideSign(g ChannelGain, laterality string) float64 {
	if g.Channel != channelTurn || g.Side == "" {
		return 1
	}
	turnsLeft := (laterality == LateralityLeft) == (g.Side == "ipsilateral")
	if laterality == LateralityBilateral || laterality == LateralityNone {
		turnsLeft = true // a bilateral turn bias is written as a leftward bias
	}
	if turnsLeft {
		return 1
	}
	return -1
}

func roundTo(v, scale float64) float64 { return float64(mathRound(float64(v*scale)) / scale) }

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// channelDrives maps a derivation to the simulator's channel vector.
func channelDrives(d DriveDerivation) (drives [6]float64) {
	for _, c := range d.Channels {
		drives[channelIndex(c.Channel)] += c.Effective
	}
	return drives
}

func channelIndex(channel string) int {
	switch channel {
	case channelForward:
		return 0
	case channelBackward:
		return 1
	case channelTurn:
		return 2
	case channelGroom:
		return 3
	case channelGiantFiber:
		return 4
	}
	return 5
}
