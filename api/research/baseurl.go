package research

import (
	"context"
	"net/http"
	"strings"
)

type requestBaseKey struct{}

// withRequestBase remembers the base URL a request came in on, for URLs
// handed back to the caller when the configured public URL is unusable.
func withRequestBase(ctx context.Context, r *http.Request) context.Context {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return context.WithValue(ctx, requestBaseKey{}, scheme+"://"+r.Host)
}

// publicBase is the base of URLs handed out: the configured public URL, or,
// when that names an ephemeral port (":0", tests), the request's own host.
func (s *Service) publicBase(ctx context.Context) string {
	base := s.Config.PublicURL
	if base == "" || strings.HasSuffix(base, ":0") {
		if b, ok := ctx.Value(requestBaseKey{}).(string); ok {
			return b
		}
	}
	return base
}
