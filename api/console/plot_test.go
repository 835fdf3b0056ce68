package console

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestEvidenceSVG_OnePathPerRunColouredByCondition(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ck, _ := h.session()
	rec := h.get("/console/evidence/bundle_1", ck)
	if rec.Code != http.StatusOK {
		t.Fatalf("evidence = %d", rec.Code)
	}
	doc := parse(t, rec.Body.String())
	var svg *html.Node
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "svg" && attr(n, "id") == "trajectories" {
			svg = n
		}
	})
	if svg == nil {
		t.Fatal("no trajectories SVG")
	}
	runs := h.evidence.bundle.Runs
	pathColor := map[string]string{} // run -> stroke
	condColor := map[string]string{} // condition -> stroke
	legend := map[string]string{}
	walk(svg, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if n.Data == "path" && strings.Contains(attr(n, "class"), "run") {
			run, cond, stroke := attr(n, "data-run"), attr(n, "data-condition"), attr(n, "stroke")
			if _, dup := pathColor[run]; dup {
				t.Errorf("run %s drawn twice", run)
			}
			pathColor[run] = stroke
			if prev, ok := condColor[cond]; ok && prev != stroke {
				t.Errorf("condition %s drawn in %s and %s", cond, prev, stroke)
			}
			condColor[cond] = stroke
			if !strings.HasPrefix(attr(n, "d"), "M") {
				t.Errorf("run %s path %q does not start with a move", run, attr(n, "d"))
			}
		}
		if n.Data == "g" && attr(n, "class") == "legend-entry" {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && c.Data == "rect" {
					legend[attr(n, "data-condition")] = attr(c, "fill")
				}
			}
		}
	})
	if len(pathColor) != len(runs) {
		t.Fatalf("%d run paths, want %d (one per run)", len(pathColor), len(runs))
	}
	for _, r := range runs {
		if pathColor[r.ID] == "" {
			t.Errorf("run %s has no path", r.ID)
		}
	}
	if len(condColor) != 3 {
		t.Fatalf("conditions drawn: %v", condColor)
	}
	seen := map[string]string{}
	for cond, c := range condColor {
		if other, dup := seen[c]; dup {
			t.Errorf("conditions %s and %s share colour %s", cond, other, c)
		}
		seen[c] = cond
		if legend[cond] != c {
			t.Errorf("legend colour of %s = %q, paths use %q", cond, legend[cond], c)
		}
	}
	mustContain(t, rec.Body.String(), "x position (mm)", "y position (mm)")
	// The metric chart uses the same colours, one bar per condition.
	bars := 0
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "rect" && attr(n, "class") == "bar" {
			bars++
			if attr(n, "fill") != condColor[attr(n, "data-condition")] {
				t.Errorf("bar of %s is %s, trajectories use %s", attr(n, "data-condition"), attr(n, "fill"), condColor[attr(n, "data-condition")])
			}
		}
	})
	if bars != 3 {
		t.Errorf("%d bars, want 3", bars)
	}
}

func TestPlot_ScalesIntoTheFrameAndHandlesDegenerateData(t *testing.T) {
	t.Parallel()
	p := plotTrajectories([]Run{{ID: "a", Condition: "c", Points: []Point{{-4, 2}, {6, 8}}}})
	if len(p.Paths) != 1 || p.Paths[0].D == "" {
		t.Fatalf("paths %+v", p.Paths)
	}
	if p.Paths[0].D != "M64.0 344.0 L480.0 16.0" {
		t.Errorf("d = %q; points on round axis ends should map to the frame corners", p.Paths[0].D)
	}
	if len(p.XTicks) < 3 || len(p.YTicks) < 3 {
		t.Errorf("ticks x=%v y=%v", p.XTicks, p.YTicks)
	}
	for _, runs := range [][]Run{nil, {{ID: "z", Condition: "c"}}, {{ID: "one", Condition: "c", Points: []Point{{1, 1}}}}} {
		p := plotTrajectories(runs)
		if len(p.Paths) != len(runs) {
			t.Errorf("%d paths for %d runs", len(p.Paths), len(runs))
		}
	}
	bc := plotMetric(Metric{ID: "m", Values: []ConditionValue{{"a", -2}, {"b", 2}}}, map[string]string{"a": "#111111"})
	if bc.Bars[0].X >= bc.Zero || bc.Bars[1].X != bc.Zero || bc.Bars[1].Color != "#777777" {
		t.Errorf("bars %+v around zero %v", bc.Bars, bc.Zero)
	}
}

func TestPlot_LongRunsAreThinnedButKeepTheirEnds(t *testing.T) {
	t.Parallel()
	pts := make([]Point, 10001)
	for i := range pts {
		pts[i] = Point{X: float64(i), Y: float64(i % 7)}
	}
	got := thin(pts, maxPathPoints)
	if len(got) != maxPathPoints || got[0] != pts[0] || got[len(got)-1] != pts[len(pts)-1] {
		t.Fatalf("thinned to %d points, ends %v %v", len(got), got[0], got[len(got)-1])
	}
	p := plotTrajectories([]Run{{ID: "long", Condition: "c", Points: pts}})
	if n := strings.Count(p.Paths[0].D, "L"); n != maxPathPoints-1 {
		t.Fatalf("path has %d line segments, want %d", n, maxPathPoints-1)
	}
}
