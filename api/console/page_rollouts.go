package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// rolloutsData is what the rollouts page shows.
type rolloutsData struct {
	Unavailable bool
	Counts      RolloutCounts
	Items       []RolloutRow
}

func (c *Console) rolloutsPage(g *gin.Context, s *session) {
	data := rolloutsData{Unavailable: c.src.Rollouts == nil}
	if c.src.Rollouts != nil {
		counts, items, err := c.src.Rollouts.RolloutOverview(g.Request.Context())
		if err != nil {
			c.fail(g, s, http.StatusServiceUnavailable, "Could not load the rollouts; try again shortly.", err)
			return
		}
		data.Counts, data.Items = counts, items
	}
	v := newView(s, "Rollouts", "rollouts")
	v.Notice, v.Data = doneNotice(g), data
	c.render(g, http.StatusOK, "rollouts", v)
}

func (c *Console) rolloutPage(g *gin.Context, s *session) {
	c.showRollout(g, s, http.StatusOK, doneNotice(g), "")
}

// showRollout renders one rollout's lease history, heartbeats and calls.
func (c *Console) showRollout(g *gin.Context, s *session, status int, notice, errMsg string) {
	if c.src.Rollouts == nil {
		c.fail(g, s, http.StatusNotFound, "Flywheel rollouts are not available in this deployment.", nil)
		return
	}
	id := g.Param("id")
	d, err := c.src.Rollouts.Rollout(g.Request.Context(), id)
	if errors.Is(err, ErrNotFound) {
		c.fail(g, s, http.StatusNotFound, "There is no rollout "+id+".", nil)
		return
	}
	if err != nil {
		c.fail(g, s, http.StatusServiceUnavailable, "Could not load rollout "+id+"; try again shortly.", err)
		return
	}
	v := newView(s, "Rollout "+id, "rollouts")
	v.Notice, v.Error, v.Data = notice, errMsg, d
	c.render(g, status, "rollout", v)
}

// cancelRollout cancels through the flywheel's operator cancel.
func (c *Console) cancelRollout(g *gin.Context, s *session) {
	if c.src.Rollouts == nil {
		c.fail(g, s, http.StatusNotFound, "Flywheel rollouts are not available in this deployment.", nil)
		return
	}
	id := g.Param("id")
	reason := strings.TrimSpace(g.PostForm("reason"))
	if len(reason) > 1000 {
		c.showRollout(g, s, http.StatusBadRequest, "", "The reason is longer than 1000 characters; nothing was cancelled.")
		return
	}
	if err := c.src.Rollouts.CancelRollout(g.Request.Context(), operatorOf(s), id, reason); err != nil {
		c.actionFailed(g, s, "cancel rollout "+id, err)
		return
	}
	g.Redirect(http.StatusSeeOther, "/console/rollouts/"+url.PathEscape(id)+"?done=cancelled&id="+url.QueryEscape(id))
}
