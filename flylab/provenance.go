package flylab

import (
	"slices"
	"strconv"
	"strings"
)

// ProvenanceManifestVersion is the contract of every provenance manifest.
const ProvenanceManifestVersion = "flylab.provenance-manifest.v1"

// ProvenanceManifest labels the scientific paths of one document (a tool
// result's data or an export payload). Labels are read from the data,
// never assigned: an entry carries exactly the labels found in the
// subtree it points at.
type ProvenanceManifest struct {
	SchemaVersion    string          `json:"schema_version"`
	PathScope        string          `json:"path_scope"`
	Entries          []ManifestEntry `json:"entries"`
	OperationalPaths []string        `json:"operational_paths"`
	// UntrustedPaths are caller-supplied annotations (goals, titles,
	// notes): operational, never evidence, excluded from every label set.
	UntrustedPaths []string `json:"untrusted_annotation_paths"`
}

// ManifestEntry is one labelled scientific path.
type ManifestEntry struct {
	Path         string   `json:"path"`
	ArtifactID   string   `json:"artifact_id"`
	ArtifactType string   `json:"artifact_type"`
	Scope        string   `json:"scope"`
	Labels       []string `json:"labels"`
	ParentIDs    []string `json:"parent_ids"`
	EvidenceIDs  []string `json:"evidence_ids"`
	SourceIDs    []string `json:"source_ids"`
	Boundary     string   `json:"boundary"`
}

// ManifestSpec names a document's paths: the scientific ones to label,
// the operational ones (never labelled), and caller-supplied annotation
// paths known in advance. Objects marked "untrusted": true are found in
// the data as well.
type ManifestSpec struct {
	PathScope        string
	ScientificPaths  []string
	OperationalPaths []string
	UntrustedPaths   []string
}

// DeriveProvenance builds the manifest of doc (decoded JSON) and the
// union of its entries' labels. The labels of an object or array are the
// union of every "provenance" value inside it, skipping operational and
// untrusted subtrees; a scalar takes the labels of the record it belongs
// to (its enclosing object's own "provenance"). A scientific path that
// resolves to a subtree with no label is INCOMPLETE_PROVENANCE; a path
// that is absent, null or empty is not an entry.
func DeriveProvenance(doc any, spec ManifestSpec) (ProvenanceManifest, []string, error) {
	untrusted := append(slices.Clone(spec.UntrustedPaths), markedUntrusted(doc, "")...)
	untrusted = resolvingPaths(doc, untrusted)
	excluded := append(resolvingPaths(doc, spec.OperationalPaths), untrusted...)
	m := ProvenanceManifest{SchemaVersion: ProvenanceManifestVersion, PathScope: spec.PathScope,
		Entries: []ManifestEntry{}, OperationalPaths: resolvingPaths(doc, spec.OperationalPaths), UntrustedPaths: untrusted}
	for _, p := range untrusted {
		if !slices.Contains(m.OperationalPaths, p) {
			m.OperationalPaths = append(m.OperationalPaths, p)
		}
	}
	union := map[string]bool{}
	for _, path := range spec.ScientificPaths {
		node, ok := ResolvePointer(doc, path)
		if !ok || isEmptyNode(node) || slices.Contains(excluded, path) {
			continue
		}
		labels := LabelsAt(doc, path, excluded)
		if len(labels) == 0 {
			return ProvenanceManifest{}, nil, newError(CodeIncompleteProvenance,
				"a scientific path of the result carries no provenance label", "path", path)
		}
		for _, l := range labels {
			union[l] = true
		}
		m.Entries = append(m.Entries, manifestEntry(path, node, labels))
	}
	var labels []string
	for _, l := range ProvenanceLabels() {
		if union[l] {
			labels = append(labels, l)
		}
	}
	if labels == nil {
		labels = []string{}
	}
	return m, labels, nil
}

// LabelsAt is the label set of the node at path: for a container, every
// label found under it outside the excluded paths; for a scalar, its
// enclosing record's own labels. Labels come in contract order.
func LabelsAt(doc any, path string, excluded []string) []string {
	node, ok := ResolvePointer(doc, path)
	if !ok {
		return nil
	}
	found := map[string]bool{}
	switch node.(type) {
	case map[string]any, []any:
		collectLabels(node, path, excluded, found)
	default:
		if parent, ok := ResolvePointer(doc, parentPointer(path)); ok && path != "" {
			if obj, ok := parent.(map[string]any); ok {
				ownLabels(obj, found)
			}
		}
	}
	var out []string
	for _, l := range ProvenanceLabels() {
		if found[l] {
			out = append(out, l)
		}
	}
	return out
}

func collectLabels(node any, path string, excluded []string, found map[string]bool) {
	if slices.Contains(excluded, path) {
		return
	}
	switch n := node.(type) {
	case map[string]any:
		ownLabels(n, found)
		for k, v := range n {
			collectLabels(v, path+"/"+escapePointerToken(k), excluded, found)
		}
	case []any:
		for i, v := range n {
			collectLabels(v, path+"/"+strconv.Itoa(i), excluded, found)
		}
	}
}

// ownLabels adds the labels of an object's "provenance" field (a label or
// a list of labels); anything that is not one of the five is ignored.
func ownLabels(obj map[string]any, found map[string]bool) {
	add := func(v any) {
		if s, ok := v.(string); ok && slices.Contains(ProvenanceLabels(), s) {
			found[s] = true
		}
	}
	switch p := obj["provenance"].(type) {
	case string:
		add(p)
	case []any:
		for _, x := range p {
			add(x)
		}
	}
}

// markedUntrusted lists the paths of objects that say "untrusted": true,
// in document order with object keys sorted. It builds a path only for
// what it lists, and sorts the keys of objects that hold objects or
// arrays only: a result of tens of kilobytes is walked without a string
// per node.
func markedUntrusted(node any, path string) []string {
	var out []string
	buf := []byte(path)
	collectUntrusted(node, &buf, &out)
	return out
}

func collectUntrusted(node any, path *[]byte, out *[]string) {
	descend := func(token string, child any) {
		n := len(*path)
		*path = append(append(*path, '/'), escapePointerToken(token)...)
		collectUntrusted(child, path, out)
		*path = (*path)[:n]
	}
	switch n := node.(type) {
	case map[string]any:
		if n["untrusted"] == true {
			*out = append(*out, string(*path))
			return
		}
		var containers []string
		for k, v := range n {
			switch v.(type) {
			case map[string]any, []any:
				containers = append(containers, k)
			}
		}
		slices.Sort(containers)
		for _, k := range containers {
			descend(k, n[k])
		}
	case []any:
		for i, v := range n {
			switch v.(type) {
			case map[string]any, []any:
				descend(strconv.Itoa(i), v)
			}
		}
	}
}

func resolvingPaths(doc any, paths []string) []string {
	out := []string{}
	for _, p := range paths {
		if _, ok := ResolvePointer(doc, p); ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func manifestEntry(path string, node any, labels []string) ManifestEntry {
	obj, _ := node.(map[string]any)
	scope := "record"
	if _, isList := node.([]any); isList {
		scope = "container"
	}
	id, _ := obj["id"].(string)
	if id != "" {
		scope = "artifact"
	}
	typ, _ := obj["artifact_type"].(string)
	if typ == "" {
		if typ = path[strings.LastIndex(path, "/")+1:]; typ == "" {
			typ = "result"
		}
	}
	boundary, _ := obj["boundary"].(string)
	if boundary == "" {
		if s, ok := node.(string); ok && strings.HasSuffix(path, "boundary") {
			boundary = s
		} else {
			boundary = labelDefinitions(labels)
		}
	}
	evidence := stringsOf(obj["evidenceIds"])
	if len(evidence) == 0 {
		evidence = stringsOf(obj["evidence_ids"])
	}
	return ManifestEntry{Path: path, ArtifactID: id, ArtifactType: typ, Scope: scope, Labels: labels,
		ParentIDs: stringsOf(obj["parent_ids"]), EvidenceIDs: evidence, SourceIDs: stringsOf(obj["sourceIds"]),
		Boundary: boundary}
}

// labelBoundaries are the contract's short label definitions.
var labelBoundaries = map[string]string{
	LabelMeasured:            "measured: an empirical result under the cited study conditions; not reproduced by FlyLab.",
	LabelDerived:             "derived: a deterministic filter, aggregation or calculation from pinned source records.",
	LabelConnectomeInferred:  "connectome_inferred: an anatomical inference; it does not establish activity or behavior.",
	LabelSimulationPredicted: "simulation_predicted: conditional on the stated model, controller mapping, parameters and seed.",
	LabelAgentHypothesized:   "agent_hypothesized: an untested proposal authored by an agent.",
}

func labelDefinitions(labels []string) string {
	parts := make([]string, 0, len(labels))
	for _, l := range labels {
		parts = append(parts, labelBoundaries[l])
	}
	return strings.Join(parts, " ")
}

func stringsOf(v any) []string {
	out := []string{}
	if list, ok := v.([]any); ok {
		for _, x := range list {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func isEmptyNode(v any) bool {
	switch n := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(n) == 0
	case []any:
		return len(n) == 0
	case string:
		return n == ""
	}
	return false
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
