// Package console is Gatehouse's operator console: server-rendered HTML
// pages under /console/ where an operator approves FlyLab protocols,
// submits human review verdicts, watches and cancels flywheel rollouts, and
// browses sessions, experiments and evidence, each linked to its workflow in
// the Temporal Web UI.
//
// Pages are html/template with embedded assets and no JavaScript framework;
// the one script only refreshes the pending-approvals list and every page
// works without it. Operators sign in with an operator token; the console
// then keeps a server-side session (models/console) in an HttpOnly,
// SameSite=Strict cookie, and every form carries that session's CSRF token.
// The pages read and act on the domains only through the interfaces in
// sources.go, and every action calls the same operation as the REST
// operator endpoint.
package console

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/platform"
)

// DefaultSessionTTL is how long a console session lasts after sign-in.
const DefaultSessionTTL = 8 * time.Hour

// Options configure a Console.
type Options struct {
	// DB stores sessions and holds the operator credentials.
	DB *gorm.DB
	// Sources are the domain data; nil fields show as not available.
	Sources Sources
	// PublicURL is the deployment's base URL; https makes cookies Secure.
	PublicURL string
	// TemporalUIURL and Namespace build the workflow links; no links when
	// TemporalUIURL is empty.
	TemporalUIURL string
	Namespace     string
	// SessionTTL defaults to DefaultSessionTTL.
	SessionTTL time.Duration
	// Log receives errors the pages do not show in full.
	Log *slog.Logger
	// Now defaults to time.Now (tests move the clock).
	Now func() time.Time
}

// Console serves the operator console.
type Console struct {
	db           *gorm.DB
	src          Sources
	httpsPublic  bool
	publicHost   string
	temporalUI   string
	namespace    string
	ttl          time.Duration
	log          *slog.Logger
	now          func() time.Time
	authenticate func(ctx context.Context, token string) (platform.Principal, error)
	pages        *pages
}

// New builds a console; it fails only when the embedded templates do not
// parse or required options are missing.
func New(o Options) (*Console, error) {
	if o.DB == nil {
		return nil, errors.New("console: a database is required for sessions")
	}
	c := &Console{
		db:         o.DB,
		src:        o.Sources,
		temporalUI: strings.TrimRight(o.TemporalUIURL, "/"),
		namespace:  o.Namespace,
		ttl:        o.SessionTTL,
		log:        o.Log,
		now:        o.Now,
	}
	if c.ttl <= 0 {
		c.ttl = DefaultSessionTTL
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.namespace == "" {
		c.namespace = "default"
	}
	if u, err := url.Parse(o.PublicURL); err == nil && o.PublicURL != "" {
		c.httpsPublic = strings.EqualFold(u.Scheme, "https")
		c.publicHost = u.Host
	}
	c.authenticate = func(ctx context.Context, token string) (platform.Principal, error) {
		return platform.Authenticate(ctx, o.DB, token)
	}
	p, err := parsePages(c.funcs())
	if err != nil {
		return nil, err
	}
	c.pages = p
	return c, nil
}

// Router is the part of rest.Router the console needs: routes kept out of
// the OpenAPI document, with the reason.
type Router interface {
	Undocumented(method, path, why string, handlers ...gin.HandlerFunc)
}

// why is recorded for every console route in the OpenAPI exemptions.
const why = "operator console HTML page (browser session, not a JSON API)"

// Mount registers every console route.
func (c *Console) Mount(r Router) {
	get := func(path string, h gin.HandlerFunc) { r.Undocumented("GET", path, why, c.headers, h) }
	post := func(path string, h gin.HandlerFunc) { r.Undocumented("POST", path, why, c.headers, h) }

	get("/console/static/*file", c.static)
	get("/console/signin", c.signInPage)
	post("/console/signin", c.signIn)
	post("/console/signout", c.action(c.signOut))

	get("/console/", c.page(c.home))
	get("/console/approvals", c.page(c.approvalsPage))
	get("/console/approvals/live", c.live)
	post("/console/approvals/:id/approve", c.action(c.approve))
	post("/console/approvals/:id/reject", c.action(c.reject))
	get("/console/reviews", c.page(c.reviewsPage))
	post("/console/reviews/:id/verdict", c.action(c.submitVerdict))
	get("/console/rollouts", c.page(c.rolloutsPage))
	get("/console/rollouts/:id", c.page(c.rolloutPage))
	post("/console/rollouts/:id/cancel", c.action(c.cancelRollout))
	get("/console/sessions", c.page(c.sessionsPage))
	get("/console/experiments", c.page(c.experimentsPage))
	get("/console/evidence", c.page(c.evidenceListPage))
	get("/console/evidence/:id", c.page(c.evidencePage))
	get("/console/evidence/:id/export", c.page(c.evidenceExport))
}

// namespaceURL is the Temporal Web UI page of the namespace. A configured
// URL that already names it (Temporal Cloud's
// https://cloud.temporal.io/namespaces/<ns>) is used as it is.
func (c *Console) namespaceURL() string {
	suffix := "/namespaces/" + url.PathEscape(c.namespace)
	if strings.HasSuffix(c.temporalUI, suffix) {
		return c.temporalUI
	}
	return c.temporalUI + suffix
}

// workflowURL links a workflow in the Temporal Web UI, or "" without one.
func (c *Console) workflowURL(workflowID string) string {
	if c.temporalUI == "" || workflowID == "" {
		return ""
	}
	return c.namespaceURL() + "/workflows/" + url.PathEscape(workflowID)
}

// workflowListURL links the Temporal Web UI's workflow list filtered to one
// GatehouseKind (the search attribute every Gatehouse workflow carries),
// or "" without a UI.
func (c *Console) workflowListURL(kind string) string {
	if kind == "" {
		return ""
	}
	return c.temporalListURL("GatehouseKind", kind)
}

// temporalListURL links the Temporal Web UI's workflow list with a list
// query ANDing attribute = value pairs (search attribute names, then
// values); pairs with an empty value are left out. "" without a UI or
// without any pair.
func (c *Console) temporalListURL(pairs ...string) string {
	if c.temporalUI == "" {
		return ""
	}
	var terms []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			terms = append(terms, pairs[i]+"="+temporalString(pairs[i+1]))
		}
	}
	if len(terms) == 0 {
		return ""
	}
	// QueryEscape writes a space as "+"; %20 reads the same everywhere.
	q := strings.ReplaceAll(url.QueryEscape(strings.Join(terms, " AND ")), "+", "%20")
	return c.namespaceURL() + "/workflows?query=" + q
}

// temporalString quotes a value as a string literal of Temporal's list
// query language; a quote or backslash in it (values come from the
// database and from filter input) cannot end the literal.
func temporalString(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
}

// operatorOf is the identity a session's actions are attributed to.
func operatorOf(s *session) Operator {
	return Operator{CredentialID: s.CredentialID, Name: s.OperatorName}
}
