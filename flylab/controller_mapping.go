package flylab

import "slices"

// ControllerMapping states how one circuit's motor map drives the
// reduced-order controller: which model variable each drive channel
// feeds, with the catalog's bilateral, unilateral and silencing gains.
// It is what simulation_predicted output is conditional on.
type ControllerMapping struct {
	ID                 string           `json:"id"`
	Controller         string           `json:"controller"`
	CircuitID          string           `json:"circuitId"`
	MotorMapID         string           `json:"motorMapId"`
	MotorProgram       string           `json:"motorProgram"`
	ResponseMode       string           `json:"responseMode"`
	Channels           []ChannelMapping `json:"channels"`
	ReferenceStimulus  string           `json:"referenceStimulus"`
	GroomPersistenceMs float64          `json:"groomPersistenceMs,omitempty"`
	BackwardLegWeights []float64        `json:"backwardLegWeights,omitempty"`
	GainStatus         string           `json:"gainStatus"`
	Note               string           `json:"note"`
	Provenance         []string         `json:"provenance"`
	Boundary           string           `json:"boundary"`
}

// ChannelMapping is one drive channel: the model variable it feeds and its
// gains (nil when the motor map does not use the channel that way).
type ChannelMapping struct {
	Channel        string   `json:"channel"`
	ModelVariable  string   `json:"modelVariable"`
	BilateralGain  *float64 `json:"bilateralGain"`
	UnilateralGain *float64 `json:"unilateralGain"`
	UnilateralSide string   `json:"unilateralSide,omitempty"`
	SilencingGain  *float64 `json:"silencingReferenceGain"`
	External       bool     `json:"externalToCircuit,omitempty"`
}

// channelVariables are the equations of the science notes each channel
// enters (section 2, "Model").
var channelVariables = map[string]string{
	channelForward:        "Df in v* = (1-g)[Vf*Df*(1-Db) - Vb*Db]",
	channelBackward:       "Db in v* = (1-g)[Vf*Df*(1-Db) - Vb*Db]",
	channelTurn:           "DR-DL in w* = Omega*(DR-DL), left positive",
	channelGroom:          "Dg in g' = (Dg-g)/tau_on",
	channelGiantFiber:     "D_gf in hazard l_gf = l_max*sigma((D_gf-theta_gf)/kappa)",
	channelParallelEscape: "D_par in hazard l_par = l_max*sigma((D_par-theta_par)/kappa)",
}

func controllerMappingFor(c Circuit) ControllerMapping {
	m := c.MotorMap
	out := ControllerMapping{ID: "controller_mapping_" + m.ID, Controller: ControllerVersion, CircuitID: c.ID,
		MotorMapID: m.ID, MotorProgram: m.MotorProgram, ResponseMode: m.ResponseMode, Channels: []ChannelMapping{},
		ReferenceStimulus: m.Drive.ReferenceStimulus, GroomPersistenceMs: m.Drive.GroomPersistenceMs,
		BackwardLegWeights: slices.Clone(m.Drive.BackwardLegWeights), GainStatus: m.Drive.Status, Note: m.Drive.Note,
		Provenance: []string{LabelDerived},
		Boundary: "Maps the catalog motor map onto the model's drive channels; the gains are model assumptions, " +
			"not measured neural efficacy."}
	// Every channel first, so the pointers below stay valid.
	for _, list := range [][]ChannelGain{m.Drive.Bilateral, m.Drive.Unilateral, m.Drive.SilencingReference} {
		for _, g := range list {
			if !slices.ContainsFunc(out.Channels, func(cm ChannelMapping) bool { return cm.Channel == g.Channel }) {
				out.Channels = append(out.Channels, ChannelMapping{Channel: g.Channel, ModelVariable: channelVariables[g.Channel]})
			}
		}
	}
	channel := func(name string) *ChannelMapping {
		return &out.Channels[slices.IndexFunc(out.Channels, func(cm ChannelMapping) bool { return cm.Channel == name })]
	}
	gain := func(g float64) *float64 { return &g }
	for _, g := range m.Drive.Bilateral {
		channel(g.Channel).BilateralGain = gain(g.Gain)
	}
	for _, g := range m.Drive.Unilateral {
		cm := channel(g.Channel)
		cm.UnilateralGain, cm.UnilateralSide = gain(g.Gain), g.Side
	}
	for _, g := range m.Drive.SilencingReference {
		cm := channel(g.Channel)
		cm.SilencingGain, cm.External = gain(g.Gain), g.External
	}
	return out
}
