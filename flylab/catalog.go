package flylab

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
)

//go:embed data/catalog.json
var catalogFile []byte

// CatalogFilePath is the embedded catalog's path inside the package; its
// SHA-256 is reported in the catalog's own dataset_versions entry.
const CatalogFilePath = "flylab/data/catalog.json"

// catalogIndex is the parsed, validated catalog with lookup maps. It is
// built once and never mutated; exported functions hand out copies.
type catalogIndex struct {
	data       CatalogData
	circuits   map[string]*Circuit
	evidence   map[string]*EvidenceRecord
	sources    map[string]*Source
	searchDocs []searchDoc
}

var loadCatalog = sync.OnceValues(func() (*catalogIndex, error) { return parseCatalog(catalogFile) })

func mustCatalog() *catalogIndex {
	idx, err := loadCatalog()
	if err != nil {
		panic("flylab: embedded catalog is invalid: " + err.Error())
	}
	return idx
}

// Catalog returns a deep copy of the whole curated catalog.
func Catalog() CatalogData {
	idx, err := parseCatalog(catalogFile)
	if err != nil {
		panic("flylab: embedded catalog is invalid: " + err.Error())
	}
	return idx.data
}

// CatalogVersion is the version string of the embedded catalog.
func CatalogVersion() string { return mustCatalog().data.Version }

// CircuitByID returns a copy of one circuit, or NOT_FOUND.
func CircuitByID(id string) (Circuit, error) {
	c, ok := mustCatalog().circuits[id]
	if !ok {
		return Circuit{}, newError(CodeNotFound, "no circuit with id "+id, "circuit_id", id)
	}
	return cloneCircuit(*c), nil
}

// EvidenceByID returns a copy of one evidence record, or NOT_FOUND.
func EvidenceByID(id string) (EvidenceRecord, error) {
	e, ok := mustCatalog().evidence[id]
	if !ok {
		return EvidenceRecord{}, newError(CodeNotFound, "no evidence record with id "+id, "evidence_id", id)
	}
	return cloneEvidence(*e), nil
}

// SourceByID returns one source record, or NOT_FOUND.
func SourceByID(id string) (Source, error) {
	s, ok := mustCatalog().sources[id]
	if !ok {
		return Source{}, newError(CodeNotFound, "no source with id "+id, "source_id", id)
	}
	return *s, nil
}

func parseCatalog(raw []byte) (*catalogIndex, error) {
	var data CatalogData
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&data); err != nil {
		return nil, fmt.Errorf("decode catalog: %w", err)
	}
	for i := range data.Circuits {
		expandBodyPartLinks(&data.Circuits[i].MotorMap)
		data.Circuits[i].MotorMap.BrainToBodyPaths = brainToBodyPaths(data.Circuits[i].MotorMap)
	}
	sum := sha256.Sum256(raw)
	data.DatasetVersions = append(data.DatasetVersions, DatasetVersion{
		ID: "gatehouse_flylab_catalog", Name: "Gatehouse FlyLab curated circuit catalog",
		Version: data.Version, Snapshot: data.SchemaVersion, SourceIDs: []string{},
		Files:      []FileHash{{Path: CatalogFilePath, SHA256: "sha256:" + hex.EncodeToString(sum[:])}},
		Note:       "Embedded in the binary; the hash covers the exact bytes searched and simulated.",
		Provenance: []string{LabelDerived},
	})
	if err := validateCatalog(data); err != nil {
		return nil, err
	}
	attachCitations(&data)
	idx := &catalogIndex{
		data:     data,
		circuits: make(map[string]*Circuit, len(data.Circuits)),
		evidence: make(map[string]*EvidenceRecord, len(data.Evidence)),
		sources:  make(map[string]*Source, len(data.Sources)),
	}
	for i := range data.Circuits {
		idx.circuits[data.Circuits[i].ID] = &data.Circuits[i]
	}
	for i := range data.Evidence {
		idx.evidence[data.Evidence[i].ID] = &data.Evidence[i]
	}
	for i := range data.Sources {
		idx.sources[data.Sources[i].ID] = &data.Sources[i]
	}
	idx.searchDocs = buildSearchDocs(data)
	return idx, nil
}

// expandBodyPartLinks turns the file's shorthand links into body-part nodes
// and one edge per body part, keeping file order.
func expandBodyPartLinks(m *MotorMap) {
	seen := map[string]bool{}
	for _, n := range m.Nodes {
		seen[n.ID] = true
	}
	for _, link := range m.BodyPartLinks {
		for _, part := range link.BodyParts {
			if !seen[part] {
				seen[part] = true
				m.Nodes = append(m.Nodes, PathNode{ID: part, Label: part, Level: "body_part",
					Side: sideOf(part), Role: "effector", Provenance: LabelDerived, EvidenceIDs: []string{}})
			}
			m.Edges = append(m.Edges, PathEdge{ID: "edge_" + link.From + "_" + part, From: link.From, To: part,
				Relation: link.Relation, Provenance: link.Provenance, EvidenceIDs: link.EvidenceIDs, Boundary: link.Boundary})
		}
	}
	m.BodyPartLinks = nil
}

func sideOf(bodyPart string) string {
	switch {
	case len(bodyPart) > 5 && bodyPart[:5] == "left_":
		return LateralityLeft
	case len(bodyPart) > 6 && bodyPart[:6] == "right_":
		return LateralityRight
	}
	return LateralityBilateral
}

// brainToBodyPaths lists every node path from a node without incoming
// edges to a body part, in edge order: the typed brain-to-body paths.
func brainToBodyPaths(m MotorMap) [][]string {
	incoming := map[string]bool{}
	for _, e := range m.Edges {
		incoming[e.To] = true
	}
	paths := [][]string{}
	var walk func(path []string)
	walk = func(path []string) {
		last := path[len(path)-1]
		extended := false
		for _, e := range m.Edges {
			if e.From != last || len(path) > len(m.Nodes) {
				continue
			}
			extended = true
			walk(append(append([]string{}, path...), e.To))
		}
		if !extended && len(path) > 1 {
			paths = append(paths, path)
		}
	}
	for _, n := range m.Nodes {
		if !incoming[n.ID] && n.Level != "body_part" {
			walk([]string{n.ID})
		}
	}
	return paths
}
