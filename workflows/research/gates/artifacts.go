package gates

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaxGatedArtifactBytes caps the artifacts a gate reads.
const MaxGatedArtifactBytes = 16 << 10

// MaxGraphNodes caps a logic graph.
const MaxGraphNodes = 16

// Template is the guidance for one gated artifact role.
type Template struct {
	Role string `json:"role"`
	// Path is relative to the experiment folder experiments/<name>/.
	Path     string `json:"path"`
	Guidance string `json:"guidance"`
	Text     string `json:"template"`
	// Sections are the "## " headings the check wants, each with a body.
	Sections []string `json:"required_sections,omitempty"`
	sections []string
}

// Checks says, in the validator's own terms, what CheckArtifact wants of
// role: the guidance an agent is given is these sentences.
func Checks(role string) []string {
	t, ok := Templates[role]
	if !ok {
		return nil
	}
	size := fmt.Sprintf("at most %d bytes", MaxGatedArtifactBytes)
	switch role {
	case string(EvResult):
		return []string{"a JSON object with at least one key (metrics, numbers)", size}
	case string(EvGraph):
		return []string{fmt.Sprintf("JSON {nodes: [{id, label}], edges: [{from, to}]}: 1 to %d nodes with unique non-empty ids", MaxGraphNodes),
			"every edge names two of those nodes", "no cycle (a DAG)", size}
	}
	return []string{"markdown with the sections " + Headings(t.sections) + ", each with a non-empty body",
		"no line left containing " + Placeholder + " (replace every " + Placeholder + " line of the template)", size}
}

// GuidanceOf is role's guidance: what to do, then exactly what the check wants.
func GuidanceOf(role string) string {
	return Templates[role].Guidance + " The check wants: " + strings.Join(Checks(role), "; ") + "."
}

// Templates are the gated roles' templates; filling one in (replacing every
// TODO line) passes the role's check.
var Templates = map[string]Template{
	string(EvPlan): {Role: "plan", Path: "plan.md",
		Guidance: "Write the plan with every section filled in, then artifact.submit it with role plan and upload the bytes.",
		Text:     "# Plan\n\n## Hypothesis\nTODO: the claim this experiment tests\n\n## Method\nTODO: what you will run, on what data\n\n## Success criteria\nTODO: the measurable outcome that supports or refutes the hypothesis\n\n## Risks\nTODO: what could invalidate the result\n",
		sections: []string{"Hypothesis", "Method", "Success criteria", "Risks"}},
	string(EvResult): {Role: "result", Path: "results/metrics.json",
		Guidance: "Run the experiment and retain its results as a JSON object of metrics (numbers), then artifact.submit it with role result.",
		Text:     "{\n  \"primary_metric\": 0.0\n}\n"},
	string(EvReport): {Role: "report", Path: "report.md",
		Guidance: "Write the results report with every section filled in, then artifact.submit it with role report.",
		Text:     "# Results report\n\n## Summary\nTODO: one paragraph on what happened\n\n## Results\nTODO: the numbers, with the files they come from\n\n## Conclusion\nTODO: what the results say about the hypothesis\n",
		sections: []string{"Summary", "Results", "Conclusion"}},
	string(EvGraph): {Role: "graph", Path: "graph.json",
		Guidance: "Write the logic graph (a DAG of at most 16 nodes from evidence to conclusion), then artifact.submit it with role graph.",
		Text:     "{\n  \"nodes\": [\n    {\"id\": \"evidence\", \"label\": \"what was observed\"},\n    {\"id\": \"conclusion\", \"label\": \"what follows\"}\n  ],\n  \"edges\": [\n    {\"from\": \"evidence\", \"to\": \"conclusion\"}\n  ]\n}\n"},
}

// Gated reports whether role is checked by a gate.
func Gated(role string) bool { _, ok := Templates[role]; return ok }

// CheckArtifact returns the problems of content for a gated role (none
// means it passes); other roles always pass.
func CheckArtifact(role string, content []byte) []string {
	t, ok := Templates[role]
	if !ok {
		return nil
	}
	if len(content) > MaxGatedArtifactBytes {
		return []string{fmt.Sprintf("larger than %d bytes", MaxGatedArtifactBytes)}
	}
	switch role {
	case string(EvResult):
		var obj map[string]any
		if err := json.Unmarshal(content, &obj); err != nil {
			return []string{"results must be a JSON object: " + err.Error()}
		}
		if len(obj) == 0 {
			return []string{"results object is empty"}
		}
		return nil
	case string(EvGraph):
		return checkGraph(content)
	default:
		return AppendUnfilled(CheckSections(string(content), t.sections), string(content))
	}
}

type graphDoc struct {
	Nodes []struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	} `json:"nodes"`
	Edges []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"edges"`
}

// checkGraph wants a DAG of 1..MaxGraphNodes uniquely named nodes.
func checkGraph(content []byte) []string {
	var g graphDoc
	if err := json.Unmarshal(content, &g); err != nil {
		return []string{"graph must be JSON {nodes, edges}: " + err.Error()}
	}
	if len(g.Nodes) == 0 {
		return []string{"graph has no nodes"}
	}
	if len(g.Nodes) > MaxGraphNodes {
		return []string{fmt.Sprintf("graph has %d nodes; at most %d", len(g.Nodes), MaxGraphNodes)}
	}
	out := map[string][]string{}
	for _, n := range g.Nodes {
		if n.ID == "" {
			return []string{"a node has no id"}
		}
		if _, dup := out[n.ID]; dup {
			return []string{"duplicate node id " + n.ID}
		}
		out[n.ID] = nil
	}
	for _, e := range g.Edges {
		_, okF := out[e.From]
		_, okT := out[e.To]
		if !okF || !okT {
			return []string{fmt.Sprintf("edge %s→%s names an unknown node", e.From, e.To)}
		}
		out[e.From] = append(out[e.From], e.To)
	}
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var cyclic bool
	var visit func(string)
	visit = func(n string) {
		color[n] = grey
		for _, m := range out[n] {
			switch color[m] {
			case grey:
				cyclic = true
			case white:
				visit(m)
			}
		}
		color[n] = black
	}
	for _, n := range g.Nodes {
		if color[n.ID] == white {
			visit(n.ID)
		}
	}
	if cyclic {
		return []string{"graph has a cycle; it must be a DAG"}
	}
	return nil
}

func init() {
	for role, t := range Templates {
		t.Sections = t.sections
		Templates[role] = t
	}
}
