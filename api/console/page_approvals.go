package console

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// approvalsData is what the approvals page and its live fragment show.
type approvalsData struct {
	Unavailable bool
	Items       []PendingApproval
	// Version changes whenever the set of pending protocols changes; the
	// live script replaces the list only then.
	Version string
}

// home is the console's landing page: the pending approvals.
func (c *Console) home(g *gin.Context, s *session) {
	g.Redirect(http.StatusSeeOther, "/console/approvals")
}

// loadApprovals reads the pending approvals.
func (c *Console) loadApprovals(g *gin.Context) (approvalsData, error) {
	if c.src.Approvals == nil {
		return approvalsData{Unavailable: true}, nil
	}
	items, err := c.src.Approvals.PendingApprovals(g.Request.Context())
	if err != nil {
		return approvalsData{}, err
	}
	return approvalsData{Items: items, Version: approvalsVersion(items)}, nil
}

// approvalsVersion fingerprints the pending (experiment, protocol hash) set.
func approvalsVersion(items []PendingApproval) string {
	h := sha256.New()
	for _, a := range items {
		h.Write([]byte(a.ExperimentID + "\x00" + a.ProtocolHash + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func (c *Console) approvalsPage(g *gin.Context, s *session) {
	c.showApprovals(g, s, http.StatusOK, doneNotice(g), "")
}

// showApprovals renders the page with an optional notice or error.
func (c *Console) showApprovals(g *gin.Context, s *session, status int, notice, errMsg string) {
	data, err := c.loadApprovals(g)
	if err != nil {
		c.fail(g, s, http.StatusServiceUnavailable, "Could not load the pending approvals; try again shortly.", err)
		return
	}
	v := newView(s, "Pending approvals", "approvals")
	v.Notice, v.Error, v.Data = notice, errMsg, data
	c.render(g, status, "approvals", v)
}

// live answers the pending list as an HTML fragment for the refresh
// script; 204 when the list has not changed since the version it holds.
func (c *Console) live(g *gin.Context) {
	s, err := c.currentSession(g)
	if err != nil || s == nil {
		g.Status(http.StatusUnauthorized)
		return
	}
	data, err := c.loadApprovals(g)
	if err != nil {
		c.log.Error("console live approvals", "err", err)
		g.Status(http.StatusServiceUnavailable)
		return
	}
	g.Header("X-Console-Version", data.Version)
	if data.Version != "" && g.GetHeader("X-Console-Have") == data.Version {
		g.Status(http.StatusNoContent)
		return
	}
	v := newView(s, "", "approvals")
	v.Data = data
	c.renderPartial(g, http.StatusOK, "approval-list", v)
}

// approve approves exactly the protocol hash the operator was shown.
func (c *Console) approve(g *gin.Context, s *session) {
	if c.src.Approvals == nil {
		c.fail(g, s, http.StatusNotFound, "FlyLab approvals are not available in this deployment.", nil)
		return
	}
	id, hash := g.Param("id"), strings.TrimSpace(g.PostForm("protocol_hash"))
	if !validProtocolHash(hash) {
		c.showApprovals(g, s, http.StatusBadRequest, "", "The form did not carry a valid protocol hash (sha256:…); nothing was approved.")
		return
	}
	err := c.src.Approvals.Approve(g.Request.Context(), operatorOf(s), id, hash)
	if err != nil {
		c.actionFailed(g, s, "approve experiment "+id, err)
		return
	}
	g.Redirect(http.StatusSeeOther, "/console/approvals?done=approved&id="+url.QueryEscape(id))
}

// reject rejects the protocol with a reason the agent will see.
func (c *Console) reject(g *gin.Context, s *session) {
	if c.src.Approvals == nil {
		c.fail(g, s, http.StatusNotFound, "FlyLab approvals are not available in this deployment.", nil)
		return
	}
	id, hash := g.Param("id"), strings.TrimSpace(g.PostForm("protocol_hash"))
	reason := strings.TrimSpace(g.PostForm("reason"))
	switch {
	case !validProtocolHash(hash):
		c.showApprovals(g, s, http.StatusBadRequest, "", "The form did not carry a valid protocol hash (sha256:…); nothing was rejected.")
		return
	case reason == "" || len(reason) > 1000:
		c.showApprovals(g, s, http.StatusBadRequest, "", "A rejection needs a reason of 1 to 1000 characters; nothing was rejected.")
		return
	}
	if err := c.src.Approvals.Reject(g.Request.Context(), operatorOf(s), id, hash, reason); err != nil {
		c.actionFailed(g, s, "reject experiment "+id, err)
		return
	}
	g.Redirect(http.StatusSeeOther, "/console/approvals?done=rejected&id="+url.QueryEscape(id))
}

// actionFailed renders the page an action came from with the domain's
// refusal; the action changed nothing.
func (c *Console) actionFailed(g *gin.Context, s *session, what string, err error) {
	status, msg := http.StatusServiceUnavailable, "Could not "+what+"; try again shortly."
	switch {
	case errors.Is(err, ErrNotFound):
		status, msg = http.StatusNotFound, "Could not "+what+": it does not exist (any more)."
	case errors.Is(err, ErrConflict):
		status, msg = http.StatusConflict, "Could not "+what+": "+err.Error()+". Nothing was changed; the page shows the current state."
	case errors.Is(err, ErrInvalid):
		status, msg = http.StatusBadRequest, "Could not "+what+": "+err.Error()+". Nothing was changed."
	default:
		c.log.Error("console action", "what", what, "err", err)
	}
	switch {
	case strings.Contains(g.FullPath(), "/approvals/"):
		c.showApprovals(g, s, status, "", msg)
	case strings.Contains(g.FullPath(), "/reviews/"):
		c.showReviews(g, s, status, "", msg)
	case strings.Contains(g.FullPath(), "/rollouts/"):
		c.showRollout(g, s, status, "", msg)
	default:
		c.fail(g, s, status, msg, nil)
	}
}

// validProtocolHash accepts "sha256:" and 64 lowercase hex digits.
func validProtocolHash(h string) bool {
	if len(h) != 71 || !strings.HasPrefix(h, "sha256:") {
		return false
	}
	for _, r := range h[7:] {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// doneNotice turns the ?done= code of a redirect after an action into a
// fixed message, so a crafted link cannot put arbitrary text on the page.
func doneNotice(g *gin.Context) string {
	id := g.Query("id")
	if !plainID(id) {
		return ""
	}
	switch g.Query("done") {
	case "approved":
		return "Approved experiment " + id + "; the agent can now run it with the approved protocol hash."
	case "rejected":
		return "Rejected experiment " + id + "."
	case "verdict":
		return "Verdict submitted for review request " + id + "."
	case "cancelled":
		return "Cancelled rollout " + id + "."
	}
	return ""
}

// plainID accepts the identifiers the domains mint: 1 to 120 letters,
// digits and - _ . : /
func plainID(id string) bool {
	if id == "" || len(id) > 120 {
		return false
	}
	for _, r := range id {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("-_.:/", r) {
			return false
		}
	}
	return true
}
