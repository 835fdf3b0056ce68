package console

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// a11yProblems checks the basics on a rendered page: the document has a
// language, every form field has a label, and headings start at h1 with no
// level skipped on the way down.
func a11yProblems(t *testing.T, page string) []string {
	t.Helper()
	doc := parse(t, page)
	var problems []string
	labelFor := map[string]bool{}
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "label" && attr(n, "for") != "" {
			labelFor[attr(n, "for")] = true
		}
	})
	var ids = map[string]int{}
	prev := 0
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if id := attr(n, "id"); id != "" {
			ids[id]++
		}
		switch n.Data {
		case "html":
			if attr(n, "lang") == "" {
				problems = append(problems, "html element has no lang")
			}
		case "input", "select", "textarea":
			typ := attr(n, "type")
			if n.Data == "input" && (typ == "hidden" || typ == "submit" || typ == "button") {
				return
			}
			if !labelFor[attr(n, "id")] && attr(n, "aria-label") == "" && !insideLabel(n) {
				problems = append(problems, fmt.Sprintf("%s name=%q id=%q has no label", n.Data, attr(n, "name"), attr(n, "id")))
			}
		case "button":
			if strings.TrimSpace(text(n)) == "" && attr(n, "aria-label") == "" {
				problems = append(problems, "button without a name")
			}
		case "h1", "h2", "h3", "h4", "h5", "h6":
			level := int(n.Data[1] - '0')
			if prev == 0 && level != 1 {
				problems = append(problems, fmt.Sprintf("first heading is %s, not h1", n.Data))
			}
			if prev != 0 && level > prev+1 {
				problems = append(problems, fmt.Sprintf("heading %s %q follows h%d (skips a level)", n.Data, strings.TrimSpace(text(n)), prev))
			}
			if prev != 0 && level == 1 {
				problems = append(problems, "more than one h1")
			}
			prev = level
		}
	})
	if prev == 0 {
		problems = append(problems, "page has no headings")
	}
	for id, n := range ids {
		if n > 1 {
			problems = append(problems, fmt.Sprintf("id %q used %d times", id, n))
		}
	}
	return problems
}

func insideLabel(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.Data == "label" {
			return true
		}
	}
	return false
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

func TestA11y_EveryPageHasLabelsAndOrderedHeadings(t *testing.T) {
	t.Parallel()
	full := newHarness(t)
	fullCK, fullCSRF := full.session()
	empty := newHarness(t, func(o *Options) { o.Sources = Sources{} })
	emptyCK, _ := empty.session()
	pages := map[string]string{
		"signin":            full.get("/console/signin").Body.String(),
		"signin refused":    full.signIn(full.agent).Body.String(),
		"error (403)":       full.post("/console/approvals/exp_1/approve", url.Values{}, fullCK).Body.String(),
		"approve refused":   full.post("/console/approvals/exp_1/approve", url.Values{csrfField: {fullCSRF}}, fullCK).Body.String(),
		"unavailable evid.": empty.get("/console/evidence/x", emptyCK).Body.String(),
	}
	for _, p := range []string{"/console/approvals", "/console/reviews", "/console/rollouts", "/console/rollouts/ro_1",
		"/console/sessions", "/console/experiments", "/console/evidence", "/console/evidence/bundle_1"} {
		pages[p] = full.get(p, fullCK).Body.String()
		pages[p+" (not available)"] = empty.get(p, emptyCK).Body.String()
	}
	for name, page := range pages {
		if len(page) < 100 {
			t.Errorf("%s: page too short to be a page: %q", name, page)
			continue
		}
		for _, p := range a11yProblems(t, page) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

func TestA11y_CheckerCatchesProblems(t *testing.T) {
	t.Parallel()
	bad := map[string]string{
		"unlabelled input": `<html lang="en"><h1>x</h1><form><input name="q"></form></html>`,
		"skipped heading":  `<html lang="en"><h1>x</h1><h3>y</h3></html>`,
		"starts at h2":     `<html lang="en"><h2>x</h2></html>`,
		"no lang":          `<html><h1>x</h1></html>`,
	}
	for name, page := range bad {
		if len(a11yProblems(t, page)) == 0 {
			t.Errorf("%s: checker found nothing", name)
		}
	}
	good := `<html lang="en"><h1>x</h1><h2>y</h2><h3>z</h3><h2>w</h2><label for="a">A</label><input id="a"><label>B <textarea></textarea></label></html>`
	if p := a11yProblems(t, good); len(p) != 0 {
		t.Errorf("good page flagged: %v", p)
	}
}
