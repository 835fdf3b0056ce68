package flywheel

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/platform"
)

// DefaultAuthCacheTTL is how long a claimer's key, once authenticated, is
// trusted without reading the credential store again. It bounds how long a
// revoked key (or a project grant taken away) keeps claiming: revocation
// is honoured within this time, on every API process.
const DefaultAuthCacheTTL = 2 * time.Second

// authCacheMax bounds the cache; past it, expired entries are dropped and,
// if that is not enough, all of them.
const authCacheMax = 4096

const agentPrincipalKey = "gatehouse.flywheel.agent"

// agentAuth authenticates agent keys as rest.Require(db, RoleAgent) does,
// and remembers a key that authenticated for ttl, keyed by the SHA-256 of
// the presented secret (the plaintext is never kept). Only successes are
// cached: an unknown key is looked up every time, so a key minted a moment
// ago works at once, and a failure is never remembered.
type agentAuth struct {
	db  *gorm.DB
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]authEntry
}

type authEntry struct {
	p       platform.Principal
	expires time.Time
}

func newAgentAuth(db *gorm.DB, ttl time.Duration, now func() time.Time) *agentAuth {
	if ttl == 0 {
		ttl = DefaultAuthCacheTTL
	}
	return &agentAuth{db: db, ttl: ttl, now: now, entries: map[[sha256.Size]byte]authEntry{}}
}

// require is the middleware: 401 without or with an unknown key, 403 for a
// key of another role, 503 when the credential store cannot answer.
func (a *agentAuth) require(c *gin.Context) {
	token, ok := rest.BearerToken(c.Request)
	if !ok {
		c.Header("WWW-Authenticate", `Bearer realm="gatehouse"`)
		rest.Abort(c, http.StatusUnauthorized, "unauthorized", "missing bearer credential (Authorization: Bearer mk_…)")
		return
	}
	p, err := a.principal(c, token)
	if errors.Is(err, platform.ErrInvalidCredential) {
		c.Header("WWW-Authenticate", `Bearer realm="gatehouse", error="invalid_token"`)
		rest.Abort(c, http.StatusUnauthorized, "unauthorized", "invalid credential")
		return
	}
	if err != nil {
		rest.Unavailable(c, "credential store unavailable; retry")
		return
	}
	if p.Role != platform.RoleAgent {
		rest.Abort(c, http.StatusForbidden, "forbidden", "this endpoint is not open to "+string(p.Role)+" credentials")
		return
	}
	c.Set(agentPrincipalKey, p)
	c.Next()
}

// principal answers from the cache or the credential store.
func (a *agentAuth) principal(c *gin.Context, token string) (platform.Principal, error) {
	key := sha256.Sum256([]byte(token))
	now := a.now()
	if a.ttl > 0 {
		a.mu.Lock()
		e, ok := a.entries[key]
		a.mu.Unlock()
		if ok && now.Before(e.expires) {
			return e.p, nil
		}
	}
	p, err := platform.Authenticate(c.Request.Context(), a.db, token)
	if err != nil || a.ttl <= 0 {
		return p, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.entries) >= authCacheMax {
		for k, e := range a.entries {
			if !now.Before(e.expires) {
				delete(a.entries, k)
			}
		}
		if len(a.entries) >= authCacheMax {
			clear(a.entries)
		}
	}
	a.entries[key] = authEntry{p: p, expires: now.Add(a.ttl)}
	return p, nil
}

// agentOf is the claimer agentAuth admitted.
func agentOf(c *gin.Context) (platform.Principal, bool) {
	v, ok := c.Get(agentPrincipalKey)
	if !ok {
		return platform.Principal{}, false
	}
	p, ok := v.(platform.Principal)
	return p, ok
}
