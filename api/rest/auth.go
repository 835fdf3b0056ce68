package rest

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/platform"
)

// Roles as named in Op.Auth.
const (
	RoleAgent    = string(platform.RoleAgent)
	RoleOperator = string(platform.RoleOperator)
	RoleRollout  = "rollout"
)

const principalKey = "gatehouse.principal"

// Require authenticates the bearer credential and admits only the roles
// given: no or an unknown credential answers 401, a known credential of
// another role answers 403.
func Require(db *gorm.DB, roles ...platform.Role) gin.HandlerFunc {
	return func(c *gin.Context) {
		token, ok := BearerToken(c.Request)
		if !ok {
			c.Header("WWW-Authenticate", `Bearer realm="gatehouse"`)
			Abort(c, http.StatusUnauthorized, "unauthorized", "missing bearer credential (Authorization: Bearer mk_… or op_…)")
			return
		}
		p, err := platform.Authenticate(c.Request.Context(), db, token)
		if errors.Is(err, platform.ErrInvalidCredential) {
			c.Header("WWW-Authenticate", `Bearer realm="gatehouse", error="invalid_token"`)
			Abort(c, http.StatusUnauthorized, "unauthorized", "invalid credential")
			return
		}
		if err != nil {
			Unavailable(c, "credential store unavailable; retry")
			return
		}
		for _, r := range roles {
			if p.Role == r {
				c.Set(principalKey, p)
				c.Next()
				return
			}
		}
		Abort(c, http.StatusForbidden, "forbidden", "this endpoint is not open to "+string(p.Role)+" credentials")
	}
}

// PrincipalOf returns the caller authenticated by Require.
func PrincipalOf(c *gin.Context) (platform.Principal, bool) {
	v, ok := c.Get(principalKey)
	if !ok {
		return platform.Principal{}, false
	}
	p, ok := v.(platform.Principal)
	return p, ok
}

// BearerToken extracts the token of an "Authorization: Bearer …" header.
func BearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	t := strings.TrimSpace(h[len(prefix):])
	return t, t != ""
}
