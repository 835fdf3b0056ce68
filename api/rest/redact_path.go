package rest

import (
	"strings"

	"github.com/gin-gonic/gin"
)

// redactedPath is the request path as the access log may keep it: the
// value of every route parameter that carries a secret (:token — upload,
// download and LLM gateway tokens) is replaced, and on a path no route
// matched (so no parameter names are known) every segment long enough to
// be a random secret is. IDs stay readable.
func redactedPath(c *gin.Context) string {
	path := c.Request.URL.Path
	if c.FullPath() == "" {
		segs := strings.Split(path, "/")
		for i, s := range segs {
			if len(s) >= minSecretLen {
				segs[i] = redacted
			}
		}
		return strings.Join(segs, "/")
	}
	for _, p := range c.Params {
		if strings.Contains(strings.ToLower(p.Key), "token") && p.Value != "" {
			path = strings.ReplaceAll(path, p.Value, redacted)
		}
	}
	return path
}

const (
	redacted = "[redacted]"
	// Secrets Gatehouse mints carry at least 32 random hex characters;
	// its IDs are shorter.
	minSecretLen = 32
)
