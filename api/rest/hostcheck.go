package rest

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
)

// HostPolicy is the DNS-rebinding protection of the MCP endpoints: the Host
// and Origin names a request may carry. Loopback names (localhost,
// 127.0.0.0/8, ::1) are always allowed, so a loopback listener refuses
// every other name; behind a proxy or on a public address the public URL's
// host and an explicit allow-list are allowed too. Ports are not compared:
// a rebinding attack changes the name, never the port.
type HostPolicy struct {
	allowed []string
}

// NewHostPolicy allows loopback names, the host of publicURL
// (GATEHOUSE_PUBLIC_URL) and every entry of extra (GATEHOUSE_MCP_ALLOWED_HOSTS:
// a host name, host:port or URL).
func NewHostPolicy(publicURL string, extra []string) HostPolicy {
	var p HostPolicy
	for _, entry := range append([]string{publicURL}, extra...) {
		if h := entryHost(entry); h != "" && !slices.Contains(p.allowed, h) {
			p.allowed = append(p.allowed, h)
		}
	}
	return p
}

// HostRefusedError says which header named a host the policy does not allow.
type HostRefusedError struct {
	// Header is "Host" or "Origin".
	Header string
	// Value is the header as sent.
	Value string
}

func (e *HostRefusedError) Error() string {
	return fmt.Sprintf("%s %q is not an allowed host of this server (DNS-rebinding protection)", e.Header, e.Value)
}

// Allows reports whether a host name (with or without port) may be served.
func (p HostPolicy) Allows(hostport string) bool {
	h := hostName(hostport)
	if h == "" {
		return false
	}
	if h == "localhost" {
		return true
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	return slices.Contains(p.allowed, h)
}

// Check returns a *HostRefusedError when r's Host, or its Origin if it
// sent one, names a host the policy does not allow.
func (p HostPolicy) Check(r *http.Request) error {
	if !p.Allows(r.Host) {
		return &HostRefusedError{Header: "Host", Value: r.Host}
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || !p.Allows(u.Host) {
			return &HostRefusedError{Header: "Origin", Value: origin}
		}
	}
	return nil
}

// GuardHosts answers 403 forbidden_host, before authentication, to a
// request for one of routes (route templates such as "/mcp/flylab") whose
// Host or Origin the policy refuses; other routes pass untouched, so the
// guard can sit on a whole domain's group.
func GuardHosts(p HostPolicy, routes ...string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !slices.Contains(routes, c.FullPath()) {
			c.Next()
			return
		}
		if err := p.Check(c.Request); err != nil {
			Abort(c, http.StatusForbidden, "forbidden_host", err.Error())
			return
		}
		c.Next()
	}
}

// entryHost is the lower-case host name of a configured entry: a URL, a
// host:port or a bare host.
func entryHost(entry string) string {
	entry = strings.TrimSpace(entry)
	if strings.Contains(entry, "://") {
		u, err := url.Parse(entry)
		if err != nil {
			return ""
		}
		entry = u.Host
	}
	return hostName(entry)
}

// hostName strips the port and IPv6 brackets and lower-cases.
func hostName(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return strings.ToLower(h)
}
