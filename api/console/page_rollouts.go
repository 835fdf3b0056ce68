package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	consolemodel "github.com/gatehouse/gatehouse/models/console"
)

// rolloutsData is what the rollouts page shows.
type rolloutsData struct {
	Unavailable bool
	Counts      RolloutCounts
	Items       []RolloutRow
	Filter      RolloutFilter
	States      []string
	Pager       pager
	// TemporalList lists the filtered rollouts' workflows in the Temporal UI.
	TemporalList string
}

// rolloutExecutionStatus is the ExecutionStatus of the rollout workflows
// in a state: a rollout's workflow runs while it is queued or leased and
// completes in every terminal state. The Temporal UI cannot tell queued
// from leased (the lease lives in the database and the workflow does not
// copy it into visibility: wf.RolloutInput.QuietVisibility); the console
// list does.
func rolloutExecutionStatus(state string) string {
	switch state {
	case "":
		return ""
	case "queued", "leased":
		return "Running"
	}
	return "Completed"
}

// rolloutsPage shows the queue counts and one page of rollouts, filtered
// by state and owner.
func (c *Console) rolloutsPage(g *gin.Context, s *session) {
	data := rolloutsData{Unavailable: c.src.Rollouts == nil, States: consolemodel.RolloutStates}
	if c.src.Rollouts != nil {
		p, err := listRequest(g)
		if err == nil {
			data.Filter.State, err = choiceFilter(g, "state", "state", consolemodel.RolloutStates)
		}
		if err == nil {
			data.Filter.Owner, err = textFilter(g, "owner", "owner")
		}
		if err != nil {
			c.refuseList(g, s, "rollouts", err)
			return
		}
		counts, page, err := c.src.Rollouts.RolloutOverview(g.Request.Context(), data.Filter, p)
		if err != nil {
			c.refuseList(g, s, "rollouts", err)
			return
		}
		data.Counts, data.Items = counts, page.Items
		data.Pager = newPager(g, "/console/rollouts", url.Values{"state": {data.Filter.State}, "owner": {data.Filter.Owner}}, page.Next)
		data.TemporalList = c.temporalListURL("GatehouseKind", "rollout", "ExecutionStatus", rolloutExecutionStatus(data.Filter.State))
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
