package gates

import "strings"

// Placeholder marks a template line the agent must replace.
const Placeholder = "TODO:"

// Headings quotes sections as the "## " headings a check wants.
func Headings(sections []string) string {
	out := make([]string, len(sections))
	for i, s := range sections {
		out[i] = "\"## " + s + "\""
	}
	return strings.Join(out, ", ")
}

// SectionBodies maps each "## " heading of a markdown text, lower-cased,
// to its body.
func SectionBodies(text string) map[string]string {
	bodies := map[string]string{}
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "## "); ok {
			cur = strings.ToLower(strings.TrimSpace(h))
			bodies[cur] += ""
			continue
		}
		if cur != "" {
			bodies[cur] += line + "\n"
		}
	}
	return bodies
}

// CheckSections wants every "## <section>" heading with a non-empty body.
func CheckSections(text string, sections []string) []string {
	bodies := SectionBodies(text)
	var p []string
	for _, s := range sections {
		body, ok := bodies[strings.ToLower(s)]
		switch {
		case !ok:
			p = append(p, "missing section ## "+s)
		case strings.TrimSpace(body) == "":
			p = append(p, "section ## "+s+" is empty")
		}
	}
	return p
}

// AppendUnfilled appends to p the problem of a Placeholder left in text.
func AppendUnfilled(p []string, text string) []string {
	if strings.Contains(text, Placeholder) {
		p = append(p, "a TODO: placeholder is left unfilled")
	}
	return p
}
