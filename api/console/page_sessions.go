package console

import (
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	consolemodel "github.com/gatehouse/gatehouse/models/console"
	flywf "github.com/gatehouse/gatehouse/workflows/flylab"
)

// sessionsData is what the FlyLab sessions page shows.
type sessionsData struct {
	Unavailable bool
	Items       []FlyLabSession
	Filter      SessionFilter
	Gates       []string
	Pager       pager
	// TemporalList lists the filtered sessions' workflows in the Temporal UI.
	TemporalList string
}

// sessionsPage lists one page of FlyLab sessions with their artifact
// manifests, filtered by owner key and gate.
func (c *Console) sessionsPage(g *gin.Context, s *session) {
	data := sessionsData{Unavailable: c.src.Sessions == nil, Gates: consolemodel.SessionGates}
	if c.src.Sessions != nil {
		p, err := listRequest(g)
		if err == nil {
			data.Filter.OwnerKey, err = textFilter(g, "owner", "owner key")
		}
		if err == nil {
			data.Filter.Gate, err = choiceFilter(g, "gate", "gate", consolemodel.SessionGates)
		}
		if err != nil {
			c.refuseList(g, s, "FlyLab sessions", err)
			return
		}
		page, err := c.src.Sessions.FlyLabSessions(g.Request.Context(), data.Filter, p)
		if err != nil {
			c.refuseList(g, s, "FlyLab sessions", err)
			return
		}
		data.Items = page.Items
		data.Pager = newPager(g, "/console/sessions", url.Values{"owner": {data.Filter.OwnerKey}, "gate": {data.Filter.Gate}}, page.Next)
		data.TemporalList = c.temporalListURL("GatehouseKind", flywf.KindSession, "GatehouseGate", data.Filter.Gate)
	}
	v := newView(s, "FlyLab sessions", "sessions")
	v.Data = data
	c.render(g, http.StatusOK, "sessions", v)
}
