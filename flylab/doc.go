// Package flylab is the pure-Go science core of FlyLab: a curated catalog
// of adult Drosophila brain-to-body circuits, a deterministic reduced-order
// embodied simulator, and the five-metric analysis and comparison that the
// FlyLab tools return. It does no I/O (the catalog is embedded), reads no
// clock and uses no global random source, so the same inputs give the same
// bytes on any machine.
//
// The API follows the tools of flylab-webmcp-contracts.v3; result structs
// use the contract's JSON field names so the tool layer can serialize them
// directly (adding session, revision and next_action itself):
//
//	find_fly_circuits        SearchCircuits(SearchQuery) (SearchResult, error)
//	draft_fly_hypothesis     CheckHypothesisEvidence(circuit, behavior, perturbation, outcome, evidenceIDs)
//	design_stimulation_trial DesignProtocol(DesignRequest) (Design, error)
//	run_fly_simulation       Simulate(Protocol, SeedManifest, ProgressFunc) (Batch, error)
//	analyze_fly_behavior     Analyze(Batch, metrics) (AnalysisResult, error)
//	compare_fly_trials       Compare([]Analysis, objectiveMetric, objective) (ComparisonResult, error)
//	save_fly_evidence        VerifyBatch(Batch), ContentHash(any)
//
// Catalog, CircuitByID, EvidenceByID, SourceByID, Model, MetricDefinitions
// and CurrentSeedPolicy read the reference data. Every caller-fixable
// problem is an *Error whose Code is a contract error code (CodeInvalidInput,
// CodeNotFound, CodeUnsupportedTarget, CodeInvalidTiming,
// CodeEvidenceMismatch, CodeMetricUnavailable, CodeIncompleteBatch,
// CodeIncomparableAnalyses, CodeSimulationUnavailable).
//
// Hashing: CanonicalJSON is RFC 8785 (JCS); ContentHash is "sha256:" + hex
// over it. ProtocolHash binds a protocol and its seed manifest for operator
// approval. A Batch carries runContentHash (SHA-256 over JCS of
// {protocol, model, conditionRuns}) and the legacy lineage runHash (SHA-256
// over run and trajectory ids; batches stored with the earlier "fnv1a:"
// hash still verify), each with its scope and serialization.
//
// Provenance: catalog evidence is measured only when the science notes read
// it in a primary source, derived for secondary, database or compiled facts
// (and for anatomy the notes do not tag), connectome_inferred for anatomy
// read in its source; simulator output is simulation_predicted; protocols
// and model mappings are agent_hypothesized; seed manifests, the model
// manifest and its controller mapping are derived. DeriveProvenance reads
// these labels back out of a document: a manifest entry carries the union
// found under its path and is never given a default.
//
// The model (ModelVersion) integrates drive channels at 1 ms: first-order
// speed and turn dynamics, an anti-phase tripod gait, a grooming state with
// layer-specific persistence, a hazard race between the giant fiber and
// parallel takeoff pathways, and a ballistic 45° takeoff. Random draws come
// from SplitMix64 seeded per replicate and are shared by every arm (common
// random numbers). Model.Parameters lists each number with its source or
// marks it an assumption.
package flylab
