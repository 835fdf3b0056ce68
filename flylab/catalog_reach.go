package flylab

import (
	"slices"
	"strings"
)

// validateHonesty applies the labelling and reachability rules the
// science notes imply beyond a record's own fields: connectome labels need
// a source that was read, database annotations are derived at most, and
// every record and supported perturbation of a circuit can actually be
// used by a hypothesis.
func validateHonesty(d CatalogData, sources map[string]Source, evidence map[string]EvidenceRecord, fail func(string, ...any)) {
	for _, e := range d.Evidence {
		if e.Provenance == LabelConnectomeInferred && !strings.HasPrefix(e.Verification, "read_in_primary_source") {
			fail("evidence %s: connectome_inferred requires a fact read in its source; untagged anatomy is derived at most", e.ID)
		}
		if e.Provenance == LabelMeasured && onlyDatabases(e.SourceIDs, sources) {
			fail("evidence %s: a database annotation is not a primary source and cannot be measured", e.ID)
		}
	}
	for _, c := range d.Circuits {
		for _, id := range citedSources(c, d, evidence) {
			if !slices.Contains(c.SourceIDs, id) {
				fail("circuit %s: its records cite %s but the circuit does not credit it", c.ID, id)
			}
		}
		for _, id := range c.EvidenceIDs {
			e, ok := evidence[id]
			if !ok {
				continue
			}
			for _, b := range e.Behaviors {
				if !slices.Contains(c.Behaviors, b) {
					fail("circuit %s: evidence %s names behavior %s the circuit does not list, so it can never be used", c.ID, id, b)
				}
			}
		}
		validatePathLabels(c, evidence, fail)
		if c.ModelCoverage != CoverageMappedReducedOrder {
			continue
		}
		for _, p := range c.MotorMap.SupportedPerturbations {
			if !perturbationReachable(c, p, evidence) {
				fail("circuit %s: supports %s but no hypothesis_support perturbation_effect of it matches %s and one of its behaviors", c.ID, p, p)
			}
		}
	}
}

func onlyDatabases(ids []string, sources map[string]Source) bool {
	for _, id := range ids {
		if sources[id].Kind != "database" {
			return false
		}
	}
	return len(ids) > 0
}

// perturbationReachable says whether a hypothesis with perturbation p can
// be drafted for c: CheckHypothesisEvidence needs a matching causal record.
func perturbationReachable(c Circuit, p string, evidence map[string]EvidenceRecord) bool {
	for _, id := range c.EvidenceIDs {
		e := evidence[id]
		if e.Role != RoleHypothesisSupport || e.Kind != KindPerturbationEffect || !slices.Contains(e.Perturbations, p) {
			continue
		}
		for _, b := range e.Behaviors {
			if slices.Contains(c.Behaviors, b) {
				return true
			}
		}
	}
	return false
}

// validatePathLabels demands that a motor-map node or edge labelled
// measured or connectome_inferred cites a record carrying that label: a
// path element is never stronger than its evidence.
func validatePathLabels(c Circuit, evidence map[string]EvidenceRecord, fail func(string, ...any)) {
	check := func(what, id, label string, ids []string) {
		if label != LabelMeasured && label != LabelConnectomeInferred {
			return
		}
		for _, eid := range ids {
			if evidence[eid].Provenance == label {
				return
			}
		}
		fail("circuit %s %s %s: labelled %s but none of %v carries that label", c.ID, what, id, label, ids)
	}
	for _, n := range c.MotorMap.Nodes {
		check("node", n.ID, n.Provenance, n.EvidenceIDs)
	}
	for _, e := range c.MotorMap.Edges {
		check("edge", e.ID, e.Provenance, e.EvidenceIDs)
	}
}

// citedSources are the sources of a circuit's evidence and of the
// connectome records that name it.
func citedSources(c Circuit, d CatalogData, evidence map[string]EvidenceRecord) []string {
	var out []string
	for _, id := range c.EvidenceIDs {
		out = append(out, evidence[id].SourceIDs...)
	}
	for _, r := range d.ConnectomeRecords {
		if slices.Contains(r.CircuitIDs, c.ID) {
			out = append(out, r.SourceIDs...)
		}
	}
	return out
}
