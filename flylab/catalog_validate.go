package flylab

import (
	"errors"
	"fmt"
	"strings"
)

var (
	evidenceKinds = []string{KindPerturbationEffect, KindStructural, KindInventory, KindMotorContext}
	evidenceRoles = []string{RoleHypothesisSupport, RoleSupplemental}
	driveChannels = []string{channelForward, channelBackward, channelTurn, channelGroom, channelGiantFiber, channelParallelEscape}
	doiStatuses   = []string{"listed_in_science_notes", "derived_identifier", "cited_by_reference_app", "not_verified", "not_applicable"}
	bibStatuses   = []string{"checked_against_record", "from_science_notes", "from_reference_app_notes", "not_verified"}
)

// validateCatalog checks the labelling rules of the science notes and the
// catalog's referential integrity. Every problem is reported at once.
func validateCatalog(d CatalogData) error {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	sources := map[string]Source{}
	for _, s := range d.Sources {
		if _, dup := sources[s.ID]; dup {
			fail("duplicate source %s", s.ID)
		}
		sources[s.ID] = s
		if !isOneOf(s.DOIStatus, doiStatuses) {
			fail("source %s: unknown doiStatus %q", s.ID, s.DOIStatus)
		}
		if !isOneOf(s.BibliographyStatus, bibStatuses) || (s.BibliographyStatus == "checked_against_record") != (s.BibliographyURL != "") {
			fail("source %s: bibliography status %q must be known, and checked exactly when a record URL is named", s.ID, s.BibliographyStatus)
		}
		if hasDOI := s.DOI != ""; hasDOI != (s.DOIStatus != "not_verified" && s.DOIStatus != "not_applicable") {
			fail("source %s: a DOI must be present exactly when its status says it was checked", s.ID)
		}
	}
	evidence := map[string]EvidenceRecord{}
	for _, e := range d.Evidence {
		if _, dup := evidence[e.ID]; dup {
			fail("duplicate evidence %s", e.ID)
		}
		evidence[e.ID] = e
		validateEvidence(e, sources, fail)
	}
	circuits := map[string]bool{}
	modelledBehaviors := map[string]bool{}
	for _, c := range d.Circuits {
		if circuits[c.ID] {
			fail("duplicate circuit %s", c.ID)
		}
		circuits[c.ID] = true
		validateCircuit(c, sources, evidence, fail)
		if c.ModelCoverage == CoverageMappedReducedOrder {
			modelledBehaviors[c.PrimaryBehavior()] = true
		}
	}
	for _, e := range d.Evidence {
		if !circuits[e.CircuitID] {
			fail("evidence %s: unknown circuit %s", e.ID, e.CircuitID)
		}
	}
	for _, b := range Behaviors() {
		if !modelledBehaviors[b] {
			fail("behavior %s has no simulated circuit", b)
		}
	}
	validateHonesty(d, sources, evidence, fail)
	for _, r := range d.ConnectomeRecords {
		if !isOneOf(r.Provenance, []string{LabelConnectomeInferred, LabelDerived}) {
			fail("connectome record %s: label %s not allowed", r.ID, r.Provenance)
		}
		for _, id := range r.SourceIDs {
			if _, ok := sources[id]; !ok {
				fail("connectome record %s: unknown source %s", r.ID, id)
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

func validateEvidence(e EvidenceRecord, sources map[string]Source, fail func(string, ...any)) {
	if !isOneOf(e.Provenance, []string{LabelMeasured, LabelDerived, LabelConnectomeInferred}) {
		fail("evidence %s: label %s is not a source label", e.ID, e.Provenance)
	}
	// Only facts read in a primary source may be measured (science notes tag V).
	if e.Provenance == LabelMeasured && !strings.HasPrefix(e.Verification, "read_in_primary_source") {
		fail("evidence %s: measured requires verification read_in_primary_source", e.ID)
	}
	if strings.HasPrefix(e.Verification, "secondary_source_only") && e.Provenance == LabelMeasured {
		fail("evidence %s: secondary-source facts are derived at most", e.ID)
	}
	if !isOneOf(e.Kind, evidenceKinds) || !isOneOf(e.Role, evidenceRoles) {
		fail("evidence %s: bad kind %q or role %q", e.ID, e.Kind, e.Role)
	}
	if e.Kind == KindPerturbationEffect && len(e.Perturbations) == 0 {
		fail("evidence %s: a perturbation effect names its perturbation", e.ID)
	}
	if e.Role == RoleHypothesisSupport && (e.Kind != KindPerturbationEffect || e.Provenance != LabelMeasured) {
		fail("evidence %s: only measured perturbation effects may support hypotheses", e.ID)
	}
	for _, p := range e.Perturbations {
		if !isOneOf(p, []string{PerturbationActivate, PerturbationSilence}) {
			fail("evidence %s: unknown perturbation %s", e.ID, p)
		}
	}
	for _, b := range e.Behaviors {
		if !isOneOf(b, Behaviors()) {
			fail("evidence %s: unknown behavior %s", e.ID, b)
		}
	}
	if len(e.SourceIDs) == 0 {
		fail("evidence %s: no source", e.ID)
	}
	for _, id := range e.SourceIDs {
		if _, ok := sources[id]; !ok {
			fail("evidence %s: unknown source %s", e.ID, id)
		}
	}
}

func validateCircuit(c Circuit, sources map[string]Source, evidence map[string]EvidenceRecord, fail func(string, ...any)) {
	m := c.MotorMap
	if len(c.Behaviors) == 0 || m.ID != c.MotorMapID || m.CircuitID != c.ID {
		fail("circuit %s: behaviors or motor map identity missing", c.ID)
		return
	}
	for _, b := range c.Behaviors {
		if !isOneOf(b, Behaviors()) {
			fail("circuit %s: unknown behavior %s", c.ID, b)
		}
	}
	for _, p := range c.TargetBodyParts {
		if !isOneOf(p, BodyParts()) {
			fail("circuit %s: unknown body part %s", c.ID, p)
		}
	}
	if err := validatePanelShape(m.RecommendedMetrics); err != nil {
		fail("circuit %s: %s", c.ID, err.Message)
	}
	for _, id := range c.SourceIDs {
		if s, ok := sources[id]; !ok {
			fail("circuit %s: unknown source %s", c.ID, id)
		} else if s.DOI == "" && s.DOIStatus == "listed_in_science_notes" {
			fail("circuit %s: source %s lacks its DOI", c.ID, id)
		}
	}
	for _, id := range c.EvidenceIDs {
		if _, ok := evidence[id]; !ok {
			fail("circuit %s: unknown evidence %s", c.ID, id)
		}
	}
	nodes := map[string]bool{}
	for _, n := range m.Nodes {
		nodes[n.ID] = true
		if !isOneOf(n.Provenance, ProvenanceLabels()) {
			fail("circuit %s node %s: bad label %s", c.ID, n.ID, n.Provenance)
		}
	}
	for _, e := range m.Edges {
		if !nodes[e.From] || !nodes[e.To] {
			fail("circuit %s edge %s: dangling", c.ID, e.ID)
		}
		if !isOneOf(e.Provenance, ProvenanceLabels()) {
			fail("circuit %s edge %s: bad label %s", c.ID, e.ID, e.Provenance)
		}
	}
	if c.ModelCoverage == CoverageMappedReducedOrder {
		if len(m.SupportedLaterality) == 0 || len(m.Drive.Bilateral) == 0 {
			fail("circuit %s: simulated circuits need lateralities and a bilateral drive", c.ID)
		}
		for _, g := range append(append(append([]ChannelGain{}, m.Drive.Bilateral...), m.Drive.Unilateral...), m.Drive.SilencingReference...) {
			if !isOneOf(g.Channel, driveChannels) || g.Gain < 0 || g.Gain > 1 {
				fail("circuit %s: bad drive channel %+v", c.ID, g)
			}
		}
	} else if c.ModelCoverage != CoverageCatalogOnly {
		fail("circuit %s: unknown model coverage %s", c.ID, c.ModelCoverage)
	}
}
