package runner

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gatehouse/gatehouse/internal/duplex"
)

// completionPaths are the endpoints the gateway counts as completions; the
// proxy counts the same ones, so an agent that kept to its llm_url reports
// exactly the gateway's count.
var completionPaths = map[string]bool{"/chat/completions": true, "/completions": true}

// llmProxy is the agent's OPENAI_BASE_URL: a loopback server that forwards
// every request to the rollout's llm_url and counts the completions the
// upstream accepted (2xx), which the runner reports as llm_call_count.
// Traffic that bypasses it is not counted, so the gateway's own count then
// disagrees and the rollout is honestly off-policy.
type llmProxy struct {
	srv    *http.Server
	prefix string
	calls  atomic.Int64
	addr   string
}

// startLLMProxy listens on a loopback port under an unguessable path
// prefix, so another local process cannot ride on the rollout's key.
func startLLMProxy(llmURL string, transport http.RoundTripper) (*llmProxy, error) {
	upstream, err := url.Parse(llmURL)
	if err != nil || upstream.Host == "" {
		return nil, errors.New("llm_url is not an absolute URL")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &llmProxy{prefix: "/" + randomToken() + "/v1", addr: ln.Addr().String()}
	base := strings.TrimRight(upstream.Path, "/")
	rp := &httputil.ReverseProxy{
		Transport:     transport,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			rest := strings.TrimPrefix(pr.In.URL.Path, p.prefix)
			pr.Out.URL.Scheme, pr.Out.URL.Host = upstream.Scheme, upstream.Host
			pr.Out.URL.Path, pr.Out.URL.RawPath = base+rest, ""
			pr.Out.Host = upstream.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			rest := strings.TrimPrefix(resp.Request.URL.Path, base)
			if resp.Request.Method == http.MethodPost && completionPaths[rest] && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
				p.calls.Add(1)
			}
			return nil
		},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, p.prefix+"/") {
			http.NotFound(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	})
	p.srv = &http.Server{Handler: duplex.Handler(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the base URL handed to the agent.
func (p *llmProxy) URL() string { return "http://" + p.addr + p.prefix }

// Close waits briefly for in-flight calls, then stops the proxy, and
// returns the completions counted.
func (p *llmProxy) Close() int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if p.srv.Shutdown(ctx) != nil {
		_ = p.srv.Close()
	}
	return p.calls.Load()
}
