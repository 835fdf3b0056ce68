package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
)

// reviewsData is what the reviews page shows.
type reviewsData struct {
	Unavailable bool
	Items       []ReviewRequest
	Verdicts    []string
	ReturnTo    []string
}

func (c *Console) reviewsPage(g *gin.Context, s *session) {
	c.showReviews(g, s, http.StatusOK, doneNotice(g), "")
}

// showReviews renders the open human review requests.
func (c *Console) showReviews(g *gin.Context, s *session, status int, notice, errMsg string) {
	data := reviewsData{Unavailable: c.src.Reviews == nil, Verdicts: Verdicts, ReturnTo: ReturnToStages}
	if c.src.Reviews != nil {
		items, err := c.src.Reviews.PendingReviews(g.Request.Context())
		if err != nil {
			c.fail(g, s, http.StatusServiceUnavailable, "Could not load the review requests; try again shortly.", err)
			return
		}
		data.Items = items
	}
	v := newView(s, "Human reviews", "reviews")
	v.Notice, v.Error, v.Data = notice, errMsg, data
	c.render(g, status, "reviews", v)
}

// submitVerdict validates the verdict form and submits it through the
// research domain's review operation.
func (c *Console) submitVerdict(g *gin.Context, s *session) {
	if c.src.Reviews == nil {
		c.fail(g, s, http.StatusNotFound, "Research reviews are not available in this deployment.", nil)
		return
	}
	id := g.Param("id")
	v := Verdict{
		Verdict:  g.PostForm("verdict"),
		Synopsis: strings.TrimSpace(g.PostForm("synopsis")),
		ReturnTo: g.PostForm("return_to"),
	}
	if msg := checkVerdict(v); msg != "" {
		c.showReviews(g, s, http.StatusBadRequest, "", msg+" Nothing was submitted.")
		return
	}
	if err := c.src.Reviews.SubmitVerdict(g.Request.Context(), operatorOf(s), id, v); err != nil {
		c.actionFailed(g, s, "submit the verdict for review request "+id, err)
		return
	}
	g.Redirect(http.StatusSeeOther, "/console/reviews?done=verdict&id="+url.QueryEscape(id))
}

// checkVerdict returns what is wrong with a verdict form, or "".
func checkVerdict(v Verdict) string {
	switch {
	case !slices.Contains(Verdicts, v.Verdict):
		return "Choose a verdict: pass, needs_changes or fail."
	case v.Synopsis == "":
		return "A verdict needs a synopsis."
	case len(v.Synopsis) > 4000:
		return "The synopsis is longer than 4000 characters."
	case v.ReturnTo != "" && !slices.Contains(ReturnToStages, v.ReturnTo):
		return "Return to must be one of " + strings.Join(ReturnToStages, ", ") + "."
	case v.ReturnTo != "" && v.Verdict == "pass":
		return "A pass verdict does not return the experiment to an earlier stage; leave return to empty."
	}
	return ""
}
