package console

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// evidenceListData is what the evidence index shows.
type evidenceListData struct {
	Unavailable bool
	Items       []EvidenceSummary
}

// evidenceData is one bundle with its plots.
type evidenceData struct {
	Bundle     EvidenceBundle
	Trajectory trajectoryPlot
	Metrics    []barChart
}

func (c *Console) evidenceListPage(g *gin.Context, s *session) {
	data := evidenceListData{Unavailable: c.src.Evidence == nil}
	if c.src.Evidence != nil {
		items, err := c.src.Evidence.EvidenceBundles(g.Request.Context())
		if err != nil {
			c.fail(g, s, http.StatusServiceUnavailable, "Could not load the evidence bundles; try again shortly.", err)
			return
		}
		data.Items = items
	}
	v := newView(s, "Evidence", "evidence")
	v.Data = data
	c.render(g, http.StatusOK, "evidence_list", v)
}

// evidencePage shows a bundle's trajectories and metric panel.
func (c *Console) evidencePage(g *gin.Context, s *session) {
	if c.src.Evidence == nil {
		c.fail(g, s, http.StatusNotFound, "FlyLab evidence is not available in this deployment.", nil)
		return
	}
	id := g.Param("id")
	b, err := c.src.Evidence.EvidenceBundle(g.Request.Context(), id)
	if errors.Is(err, ErrNotFound) {
		c.fail(g, s, http.StatusNotFound, "There is no evidence bundle "+id+".", nil)
		return
	}
	if err != nil {
		c.fail(g, s, http.StatusServiceUnavailable, "Could not load evidence bundle "+id+"; try again shortly.", err)
		return
	}
	data := evidenceData{Bundle: b}
	conds := make([]string, 0, len(b.Runs))
	for _, r := range b.Runs {
		conds = append(conds, r.Condition)
	}
	for _, m := range b.Metrics {
		for _, v := range m.Values {
			conds = append(conds, v.Condition)
		}
	}
	colors := conditionColors(conds)
	data.Trajectory = plotTrajectoriesWith(b.Runs, colors)
	for _, m := range b.Metrics {
		data.Metrics = append(data.Metrics, plotMetric(m, colors))
	}
	v := newView(s, "Evidence bundle "+id, "evidence")
	v.Data = data
	c.render(g, http.StatusOK, "evidence", v)
}

// evidenceExport downloads the bundle's portable export document.
func (c *Console) evidenceExport(g *gin.Context, s *session) {
	if c.src.Evidence == nil {
		c.fail(g, s, http.StatusNotFound, "FlyLab evidence is not available in this deployment.", nil)
		return
	}
	id := g.Param("id")
	ex, err := c.src.Evidence.EvidenceExport(g.Request.Context(), id)
	if errors.Is(err, ErrNotFound) {
		c.fail(g, s, http.StatusNotFound, "There is no evidence bundle "+id+".", nil)
		return
	}
	if err != nil {
		c.fail(g, s, http.StatusServiceUnavailable, "Could not export evidence bundle "+id+"; try again shortly.", err)
		return
	}
	name := safeFilename(ex.Filename, id)
	media := ex.MediaType
	if media == "" {
		media = "application/json"
	}
	g.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	g.Data(http.StatusOK, media, ex.Body)
}

// safeFilename keeps a download name to characters safe in a header.
func safeFilename(name, fallbackID string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.", r) {
				return r
			}
			return '_'
		}, s)
	}
	if out := clean(name); strings.Trim(out, "._") != "" {
		return out
	}
	return clean("flylab-evidence-" + fallbackID + ".json")
}
