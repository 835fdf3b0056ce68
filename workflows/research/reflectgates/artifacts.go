package reflectgates

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gatehouse/gatehouse/workflows/research/gates"
)

// Lens is one member of a wave's roster.
type Lens struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Charter     string `json:"charter"`
	WhyDistinct string `json:"why_distinct"`
	Core        bool   `json:"core"`
}

// RosterSize is the number of lenses of every wave.
const RosterSize = 5

// CoreLenses are the three lenses every wave has, with default charters.
var CoreLenses = []Lens{
	{ID: "amplify", Title: "Amplify", Core: true, Charter: "Find what worked across the corpus and how to push it further: the results worth building on and the next step that would extend them.",
		WhyDistinct: "Looks only at success and its leverage."},
	{ID: "avoid", Title: "Avoid", Core: true, Charter: "Find what failed, misled or wasted effort, and the patterns the project should stop repeating.",
		WhyDistinct: "Looks only at failure and its causes."},
	{ID: "entropy", Title: "Entropy", Core: true, Charter: "Find what is still uncertain, untested or contradictory, and which single experiment would reduce that uncertainty most.",
		WhyDistinct: "Looks at what the corpus does not yet know."},
}

// LensSlug is the form of a lens id (also its file name).
var LensSlug = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,47}$`)

// FolderSafe is the form of an experiment name (as experiment.create wants it).
var FolderSafe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{2,47}$`)

// MaxFollowUps caps the follow-up experiments a wave creates.
const MaxFollowUps = 3

// Template is the guidance for one reflection artifact role.
type Template struct {
	Role string `json:"role"`
	// Path is relative to the wave's folder reflections/<id>/; a lens doc's
	// path has {lens_id} replaced.
	Path     string `json:"path"`
	Guidance string `json:"guidance"`
	Text     string `json:"template"`
	sections []string
}

// Templates are the reflection roles' templates; filling one in (replacing
// every TODO line) passes the role's check.
var Templates = map[string]Template{
	string(EvLensDocs): {Role: string(EvLensDocs), Path: "lenses/{lens_id}.md",
		Guidance: "One subagent per lens writes its lens doc from the lens charter and the corpus (reflection.get), then artifact.submit it with role reflection_lens_doc and the lens_id.",
		Text:     "# Lens reflection\n\n## TLDR\nTODO: the lens's finding in two sentences\n\n## Evidence\nTODO: the corpus experiments and what they show through this lens\n\n## Recommendations\nTODO: what the project should do next because of it\n",
		sections: []string{"TLDR", "Evidence", "Recommendations"}},
	string(EvProjectGraph): {Role: string(EvProjectGraph), Path: "project_graph.json",
		Guidance: "Update the project's logic graph (a DAG of at most 16 nodes from the experiments' evidence to the claims), then artifact.submit it with role project_graph.",
		Text:     "{\n  \"nodes\": [\n    {\"id\": \"evidence\", \"label\": \"what the corpus showed\"},\n    {\"id\": \"claim\", \"label\": \"what the project now holds\"}\n  ],\n  \"edges\": [\n    {\"from\": \"evidence\", \"to\": \"claim\"}\n  ]\n}\n"},
	string(EvReflectionDoc): {Role: string(EvReflectionDoc), Path: "reflection.md",
		Guidance: "Synthesize the five lens docs into the reflection doc, then artifact.submit it with role reflection_doc.",
		Text:     "# Reflection\n\n## TLDR\nTODO: the wave's conclusion in two sentences\n\n## Findings\nTODO: what the lenses agree and disagree on\n\n## Implications\nTODO: what changes in the project's claims and plans\n",
		sections: []string{"TLDR", "Findings", "Implications"}},
	string(EvChangeSpec): {Role: string(EvChangeSpec), Path: "change_spec.json",
		Guidance: "Write the change spec publish applies: claim_changes ({claim_id, status?, confidence?} to change a claim, {statement, scope?, confidence?} to add one) and at most 3 follow_up_experiments ({name, intent, depends_on: corpus experiment ids}); then artifact.submit it with role change_spec.",
		Text:     "{\n  \"summary\": \"TODO: what this wave changes and why\",\n  \"claim_changes\": [],\n  \"follow_up_experiments\": []\n}\n"},
}

// Checks says, in the validator's own terms, what CheckArtifact (and the
// api's change-spec check against the project) wants of role.
func Checks(role string) []string {
	t, ok := Templates[role]
	if !ok {
		return nil
	}
	size := fmt.Sprintf("at most %d bytes", gates.MaxGatedArtifactBytes)
	todo := "no " + gates.Placeholder + " left anywhere"
	switch role {
	case string(EvProjectGraph):
		return append(gates.Checks("graph"), todo)
	case string(EvChangeSpec):
		return []string{
			"JSON with exactly the keys summary, claim_changes, follow_up_experiments (no others)",
			"summary: a non-empty string",
			"each claim_changes entry either changes a project claim {claim_id, status and/or confidence} or adds one {statement, scope?, confidence?}",
			"status one of " + strings.Join(keys(claimStatuses), "|") + "; confidence one of " + strings.Join(keys(confidences), "|"),
			fmt.Sprintf("at most %d follow_up_experiments {name, intent, depends_on?}", MaxFollowUps),
			"each follow-up name unique, folder-safe (3–48 of a-z 0-9 . _ -, starting with a letter or digit) and not the name of an experiment of the project",
			"depends_on lists only ids of this wave's corpus experiments", todo, size}
	}
	return []string{"markdown with the sections " + gates.Headings(t.sections) + ", each with a non-empty body", todo, size}
}

// keys are the non-empty keys of set, sorted.
func keys(set map[string]bool) []string {
	var out []string
	for k := range set {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// GuidanceOf is role's guidance: what to do, then exactly what the check wants.
func GuidanceOf(role string) string {
	return Templates[role].Guidance + " The check wants: " + strings.Join(Checks(role), "; ") + "."
}

// Gated reports whether role is a reflection artifact role checked by a gate.
func Gated(role string) bool { _, ok := Templates[role]; return ok }

// ChangeSpec is the parsed change_spec artifact.
type ChangeSpec struct {
	Summary      string        `json:"summary"`
	ClaimChanges []ClaimChange `json:"claim_changes"`
	FollowUps    []FollowUp    `json:"follow_up_experiments"`
}

// ClaimChange changes a claim (ClaimID set) or adds one (Statement set).
type ClaimChange struct {
	ClaimID    string `json:"claim_id,omitempty"`
	Statement  string `json:"statement,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Status     string `json:"status,omitempty"`
	Confidence string `json:"confidence,omitempty"`
}

// FollowUp is one experiment publish creates.
type FollowUp struct {
	Name      string   `json:"name"`
	Intent    string   `json:"intent"`
	DependsOn []string `json:"depends_on,omitempty"`
}

var (
	claimStatuses = map[string]bool{"": true, "active": true, "supported": true, "refuted": true, "retired": true}
	confidences   = map[string]bool{"": true, "low": true, "medium": true, "high": true}
)

// ParseChangeSpec decodes and checks a change spec's shape.
func ParseChangeSpec(content []byte) (ChangeSpec, []string) {
	var cs ChangeSpec
	dec := json.NewDecoder(strings.NewReader(string(content)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cs); err != nil {
		return cs, []string{"change spec must be JSON {summary, claim_changes, follow_up_experiments}: " + err.Error()}
	}
	var p []string
	if strings.TrimSpace(cs.Summary) == "" {
		p = append(p, "summary is empty")
	}
	for i, c := range cs.ClaimChanges {
		switch {
		case (c.ClaimID == "") == (c.Statement == ""):
			p = append(p, fmt.Sprintf("claim_changes[%d] needs exactly one of claim_id (change) or statement (add)", i))
		case c.ClaimID != "" && c.Status == "" && c.Confidence == "":
			p = append(p, fmt.Sprintf("claim_changes[%d] changes nothing: give status or confidence", i))
		}
		if !claimStatuses[c.Status] || !confidences[c.Confidence] {
			p = append(p, fmt.Sprintf("claim_changes[%d] has an unknown status or confidence", i))
		}
	}
	if len(cs.FollowUps) > MaxFollowUps {
		p = append(p, fmt.Sprintf("%d follow_up_experiments; at most %d", len(cs.FollowUps), MaxFollowUps))
	}
	names := map[string]bool{}
	for i, f := range cs.FollowUps {
		if !FolderSafe.MatchString(f.Name) {
			p = append(p, fmt.Sprintf("follow_up_experiments[%d].name %q is not folder-safe (3–48 of a-z 0-9 . _ -)", i, f.Name))
		}
		if names[f.Name] {
			p = append(p, fmt.Sprintf("follow_up_experiments[%d].name %q is repeated", i, f.Name))
		}
		names[f.Name] = true
	}
	return cs, p
}

// CheckArtifact returns the problems of content for a reflection role
// (none means it passes); other roles always pass.
func CheckArtifact(role string, content []byte) []string {
	t, ok := Templates[role]
	if !ok {
		return nil
	}
	if len(content) > gates.MaxGatedArtifactBytes {
		return []string{fmt.Sprintf("larger than %d bytes", gates.MaxGatedArtifactBytes)}
	}
	var p []string
	switch role {
	case string(EvProjectGraph):
		return gates.CheckArtifact("graph", content)
	case string(EvChangeSpec):
		_, p = ParseChangeSpec(content)
	default:
		p = gates.CheckSections(string(content), t.sections)
	}
	return gates.AppendUnfilled(p, string(content))
}

// TLDR is a one-paragraph summary of an artifact for reflection.get: a
// markdown doc's TLDR section, a change spec's summary, a graph's size.
func TLDR(role string, content []byte) string {
	var out string
	switch role {
	case string(EvChangeSpec):
		cs, _ := ParseChangeSpec(content)
		out = fmt.Sprintf("%s (%d claim changes, %d follow-ups)", cs.Summary, len(cs.ClaimChanges), len(cs.FollowUps))
	case string(EvProjectGraph), "graph":
		var g struct{ Nodes, Edges []json.RawMessage }
		_ = json.Unmarshal(content, &g)
		out = fmt.Sprintf("logic graph of %d nodes and %d edges", len(g.Nodes), len(g.Edges))
	default:
		b := gates.SectionBodies(string(content))
		out = strings.TrimSpace(b["tldr"])
		if out == "" {
			out = strings.TrimSpace(b["summary"])
		}
	}
	if r := []rune(out); len(r) > 400 {
		out = string(r[:400]) + "…"
	}
	return out
}
