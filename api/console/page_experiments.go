package console

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	reswf "github.com/gatehouse/gatehouse/workflows/research"
)

// experimentsData is what the research experiments page shows.
type experimentsData struct {
	Unavailable bool
	Items       []ResearchExperiment
	Filter      ExperimentFilter
	Pager       pager
	// Kind is the experiments' GatehouseKind, for the rows' Temporal links.
	Kind string
	// TemporalList lists the filtered experiments' workflows in the
	// Temporal UI.
	TemporalList string
}

// experimentsPage lists one page of research experiments with their
// project, status and current gate, filtered by project and gate.
func (c *Console) experimentsPage(g *gin.Context, s *session) {
	data := experimentsData{Unavailable: c.src.Experiments == nil, Kind: reswf.KindExperiment}
	if c.src.Experiments != nil {
		p, err := listRequest(g)
		if err == nil {
			data.Filter.Project, err = textFilter(g, "project", "project")
		}
		if err == nil {
			data.Filter.Gate, err = textFilter(g, "gate", "gate")
		}
		if err != nil {
			c.refuseList(g, s, "research experiments", err)
			return
		}
		page, err := c.src.Experiments.ResearchExperiments(g.Request.Context(), data.Filter, p)
		if err != nil {
			c.refuseList(g, s, "research experiments", err)
			return
		}
		data.Items = page.Items
		data.Pager = newPager(g, "/console/experiments", url.Values{"project": {data.Filter.Project}, "gate": {data.Filter.Gate}}, page.Next)
		data.TemporalList = c.temporalListURL("GatehouseKind", reswf.KindExperiment,
			"GatehouseProject", data.Filter.Project, "GatehouseGate", data.Filter.Gate)
	}
	v := newView(s, "Research experiments", "experiments")
	v.Data = data
	c.render(g, http.StatusOK, "experiments", v)
}
