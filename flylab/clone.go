package flylab

import "slices"

// The catalog is shared read-only state; these copies keep callers from
// changing it through a returned record.

func cloneCircuit(c Circuit) Circuit {
	c.Behaviors = slices.Clone(c.Behaviors)
	c.NeuronTypes = slices.Clone(c.NeuronTypes)
	c.SearchTerms = slices.Clone(c.SearchTerms)
	c.Drivers = slices.Clone(c.Drivers)
	c.PerturbationMethods = slices.Clone(c.PerturbationMethods)
	c.SourceIDs = slices.Clone(c.SourceIDs)
	c.EvidenceIDs = slices.Clone(c.EvidenceIDs)
	c.TargetBodyParts = slices.Clone(c.TargetBodyParts)
	c.Provenance = slices.Clone(c.Provenance)
	c.MotorMap = cloneMotorMap(c.MotorMap)
	return c
}

func cloneMotorMap(m MotorMap) MotorMap {
	m.SupportedLaterality = slices.Clone(m.SupportedLaterality)
	m.SupportedPerturbations = slices.Clone(m.SupportedPerturbations)
	m.Behaviors = slices.Clone(m.Behaviors)
	m.TargetBodyParts = slices.Clone(m.TargetBodyParts)
	m.RecommendedMetrics = slices.Clone(m.RecommendedMetrics)
	m.Nodes = slices.Clone(m.Nodes)
	for i := range m.Nodes {
		m.Nodes[i].EvidenceIDs = slices.Clone(m.Nodes[i].EvidenceIDs)
	}
	m.Edges = slices.Clone(m.Edges)
	for i := range m.Edges {
		m.Edges[i].EvidenceIDs = slices.Clone(m.Edges[i].EvidenceIDs)
	}
	m.BrainToBodyPaths = slices.Clone(m.BrainToBodyPaths)
	for i := range m.BrainToBodyPaths {
		m.BrainToBodyPaths[i] = slices.Clone(m.BrainToBodyPaths[i])
	}
	m.Drive.Bilateral = slices.Clone(m.Drive.Bilateral)
	m.Drive.Unilateral = slices.Clone(m.Drive.Unilateral)
	m.Drive.SilencingReference = slices.Clone(m.Drive.SilencingReference)
	m.Drive.BackwardLegWeights = slices.Clone(m.Drive.BackwardLegWeights)
	return m
}

func cloneEvidence(e EvidenceRecord) EvidenceRecord {
	e.Perturbations = slices.Clone(e.Perturbations)
	e.Behaviors = slices.Clone(e.Behaviors)
	e.SourceIDs = slices.Clone(e.SourceIDs)
	e.Citations = slices.Clone(e.Citations)
	return e
}
