package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	consolemodel "github.com/gatehouse/gatehouse/models/console"
	"github.com/gatehouse/gatehouse/models/platform"
)

// Cookie names. The session cookie holds the session id; the sign-in
// cookie holds the one-time CSRF token of the sign-in form (there is no
// session yet to bind it to, so it is a double-submit token).
const (
	sessionCookie = "gatehouse_console"
	signInCookie  = "gatehouse_console_signin"
	cookiePath    = "/console"
	csrfField     = "csrf_token"
)

// session is the signed-in operator's session for this request.
type session = consolemodel.Session

const sessionKey = "gatehouse.console.session"

// headers sets the security headers of every console response.
func (c *Console) headers(g *gin.Context) {
	h := g.Writer.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if !strings.HasPrefix(g.Request.URL.Path, "/console/static/") {
		h.Set("Cache-Control", "no-store")
	}
}

// currentSession resolves the session cookie; nil when there is none.
func (c *Console) currentSession(g *gin.Context) (*session, error) {
	ck, err := g.Request.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	s, err := consolemodel.Lookup(g.Request.Context(), c.db, ck.Value, c.now())
	if errors.Is(err, consolemodel.ErrNoSession) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// page wraps a GET handler that needs a signed-in operator; without a
// session the browser is sent to sign in and brought back afterwards.
func (c *Console) page(h func(*gin.Context, *session)) gin.HandlerFunc {
	return func(g *gin.Context) {
		s, err := c.currentSession(g)
		if err != nil {
			c.fail(g, nil, http.StatusServiceUnavailable, "The session store is unavailable; try again shortly.", err)
			return
		}
		if s == nil {
			g.Redirect(http.StatusSeeOther, "/console/signin?next="+url.QueryEscape(g.Request.URL.RequestURI()))
			g.Abort()
			return
		}
		h(g, s)
	}
}

// action wraps a POST handler: it needs a session, a same-origin request
// and the session's CSRF token, checked before the handler runs so a
// refused request changes nothing.
func (c *Console) action(h func(*gin.Context, *session)) gin.HandlerFunc {
	return func(g *gin.Context) {
		s, err := c.currentSession(g)
		if err != nil {
			c.fail(g, nil, http.StatusServiceUnavailable, "The session store is unavailable; try again shortly.", err)
			return
		}
		if s == nil {
			c.fail(g, nil, http.StatusForbidden, "You are not signed in, or your session has ended. Sign in again and repeat the action.", nil)
			return
		}
		if !c.sameOrigin(g.Request) {
			c.fail(g, s, http.StatusForbidden, "This form was submitted from another site and was refused.", nil)
			return
		}
		if !tokensEqual(g.PostForm(csrfField), s.CSRFToken) {
			c.fail(g, s, http.StatusForbidden, "The form's security token is missing or does not match this session; reload the page and try again.", nil)
			return
		}
		h(g, s)
	}
}

// sameOrigin refuses a request whose Origin header names another host.
// Browsers send Origin on every form POST; its absence (old clients, the
// tests) leaves the CSRF token as the only check.
func (c *Console) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host) || (c.publicHost != "" && strings.EqualFold(u.Host, c.publicHost))
}

// secure reports whether cookies must carry the Secure attribute.
func (c *Console) secure(r *http.Request) bool { return r.TLS != nil || c.httpsPublic }

// setCookie writes a console cookie; maxAge < 0 deletes it.
func (c *Console) setCookie(g *gin.Context, name, value string, maxAge int) {
	http.SetCookie(g.Writer, &http.Cookie{
		Name: name, Value: value, Path: cookiePath, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.secure(g.Request),
	})
}

// signInPage shows the sign-in form with a fresh double-submit token.
func (c *Console) signInPage(g *gin.Context) {
	if s, err := c.currentSession(g); err == nil && s != nil {
		g.Redirect(http.StatusSeeOther, safeNext(g.Query("next")))
		return
	}
	c.renderSignIn(g, http.StatusOK, "")
}

func (c *Console) renderSignIn(g *gin.Context, status int, msg string) {
	token := randomToken()
	c.setCookie(g, signInCookie, token, 1800)
	next := g.PostForm("next")
	if next == "" {
		next = g.Query("next")
	}
	notice := ""
	if g.Query("signed_out") != "" {
		notice = "You have signed out."
	}
	c.render(g, status, "signin", view{Title: "Sign in", CSRF: token, Error: msg, Notice: notice,
		Data: map[string]string{"Next": safeNext(next)}})
}

// signIn exchanges an operator token for a session. Agent keys, unknown
// tokens and forged forms are refused without creating anything.
func (c *Console) signIn(g *gin.Context) {
	ck, err := g.Request.Cookie(signInCookie)
	if err != nil || !c.sameOrigin(g.Request) || !tokensEqual(g.PostForm(csrfField), ck.Value) {
		c.renderSignIn(g, http.StatusForbidden, "The sign-in form expired or was not sent from this console; try again.")
		return
	}
	ctx := g.Request.Context()
	p, err := c.authenticate(ctx, strings.TrimSpace(g.PostForm("token")))
	switch {
	case errors.Is(err, platform.ErrInvalidCredential):
		c.renderSignIn(g, http.StatusUnauthorized, "That is not a valid operator token.")
		return
	case err != nil:
		c.log.Error("console sign-in", "err", err)
		c.renderSignIn(g, http.StatusServiceUnavailable, "The credential store is unavailable; try again shortly.")
		return
	case p.Role != platform.RoleOperator:
		c.renderSignIn(g, http.StatusForbidden, "Agent keys cannot open the console. Sign in with an operator token (op_…).")
		return
	}
	if _, err := consolemodel.DeleteExpired(ctx, c.db, c.now()); err != nil {
		c.log.Warn("console: deleting expired sessions", "err", err)
	}
	opened, err := consolemodel.Open(ctx, c.db, p, c.ttl, c.now())
	if err != nil {
		c.log.Error("console sign-in", "err", err)
		c.renderSignIn(g, http.StatusServiceUnavailable, "Could not start a session; try again shortly.")
		return
	}
	c.setCookie(g, signInCookie, "", -1)
	c.setCookie(g, sessionCookie, opened.ID, int(c.ttl.Seconds()))
	g.Redirect(http.StatusSeeOther, safeNext(g.PostForm("next")))
}

// signOut ends the session and clears the cookie.
func (c *Console) signOut(g *gin.Context, _ *session) {
	if ck, err := g.Request.Cookie(sessionCookie); err == nil {
		if err := consolemodel.Close(g.Request.Context(), c.db, ck.Value); err != nil {
			c.fail(g, nil, http.StatusServiceUnavailable, "Could not end the session; try again.", err)
			return
		}
	}
	c.setCookie(g, sessionCookie, "", -1)
	g.Redirect(http.StatusSeeOther, "/console/signin?signed_out=1")
}

// safeNext keeps a post-sign-in redirect inside the console.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/console/") || strings.HasPrefix(next, "/console//") ||
		strings.ContainsAny(next, "\\\r\n") || strings.HasPrefix(next, "/console/signin") {
		return "/console/approvals"
	}
	return next
}
