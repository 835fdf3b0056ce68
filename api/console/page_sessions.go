package console

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// sessionsData is what the sessions and experiments page shows.
type sessionsData struct {
	FlyLabUnavailable   bool
	FlyLab              []FlyLabSession
	ResearchUnavailable bool
	Research            []ResearchExperiment
}

// sessionsPage lists FlyLab sessions with their artifact manifests and
// research experiments with their current gate.
func (c *Console) sessionsPage(g *gin.Context, s *session) {
	ctx := g.Request.Context()
	data := sessionsData{FlyLabUnavailable: c.src.Sessions == nil, ResearchUnavailable: c.src.Experiments == nil}
	var err error
	if c.src.Sessions != nil {
		if data.FlyLab, err = c.src.Sessions.FlyLabSessions(ctx); err != nil {
			c.fail(g, s, http.StatusServiceUnavailable, "Could not load the FlyLab sessions; try again shortly.", err)
			return
		}
	}
	if c.src.Experiments != nil {
		if data.Research, err = c.src.Experiments.ResearchExperiments(ctx); err != nil {
			c.fail(g, s, http.StatusServiceUnavailable, "Could not load the research experiments; try again shortly.", err)
			return
		}
	}
	v := newView(s, "Sessions and experiments", "sessions")
	v.Data = data
	c.render(g, http.StatusOK, "sessions", v)
}
