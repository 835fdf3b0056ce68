package flywheel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/internal/telemetry"
	models "github.com/gatehouse/gatehouse/models/flywheel"
)

// gatewayEndpoints are the proxied OpenAI-compatible endpoints; the value
// says whether a call is a completion (counted for on-policy checks).
var gatewayEndpoints = map[string]bool{
	"/chat/completions": true,
	"/completions":      true,
	"/embeddings":       false,
}

// Gateway handles POST /llm/:token/v1/*path: the per-rollout LLM gateway.
// The token must be the current lease's, presented with that lease's
// api_key, before the output is accepted and the deadline passes. Each
// call is logged (with the request digest and model: the server-derived
// half of the scaffold identity) and each accepted completion counted for
// the rollout before its body reaches the agent, so an output posted right
// after the last completion still sees it counted. Streaming responses are
// flushed as they arrive.
func (h *Handler) Gateway(c *gin.Context) {
	path := c.Param("path")
	completion, known := gatewayEndpoints[path]
	if !known {
		rest.Abort(c, http.StatusNotFound, "not_found", "the gateway proxies /chat/completions, /completions and /embeddings")
		return
	}
	if h.opts.Upstream == "" {
		rest.Abort(c, http.StatusServiceUnavailable, "llm_upstream_unconfigured",
			"the LLM gateway has no upstream: set GATEHOUSE_LLM_UPSTREAM_URL to an OpenAI-compatible base URL (…/v1)")
		return
	}
	upstream, err := url.Parse(h.opts.Upstream)
	if err != nil {
		rest.Abort(c, http.StatusServiceUnavailable, "llm_upstream_invalid", "GATEHOUSE_LLM_UPSTREAM_URL is not a URL")
		return
	}
	key, ok := rest.BearerToken(c.Request)
	if !ok {
		rest.Abort(c, http.StatusUnauthorized, "unauthorized", "send the rollout's api_key as the bearer (OPENAI_API_KEY)")
		return
	}
	lease, err := models.ResolveGateway(c.Request.Context(), h.db, c.Param("token"), key, h.opts.Now())
	switch {
	case errors.Is(err, models.ErrUnknownKey):
		rest.Abort(c, http.StatusNotFound, "not_found", "unknown or expired llm_url")
		return
	case errors.Is(err, models.ErrForeignKey):
		rest.Abort(c, http.StatusForbidden, "forbidden", "this llm_url belongs to another rollout's api_key")
		return
	case errors.Is(err, models.ErrGone):
		rest.Abort(c, http.StatusGone, "rollout_gone", "this llm_url's lease expired or was superseded by a later lease, or the rollout's output was accepted or its deadline passed; nothing was counted")
		return
	case err != nil:
		rest.Unavailable(c, "database unavailable")
		return
	}
	body, ok := rest.ReadBody(c)
	if !ok {
		return
	}
	call := newCall(lease, path, completion, body, h.opts.Now())
	h.proxy(c, upstream, path, body, call)
}

func newCall(l models.GatewayLease, path string, completion bool, body []byte, now time.Time) models.GatewayCall {
	sum := sha256.Sum256(body)
	c := models.GatewayCall{
		ID: models.NewCallID(), RolloutID: l.RolloutID, Epoch: l.Epoch, Endpoint: strings.TrimPrefix(path, "/"),
		Completion: completion, RequestSHA256: hex.EncodeToString(sum[:]), StartedAt: now.UTC(),
	}
	deriveIdentity(&c, body)
	return c
}

// maxCapturedResponse bounds how much of a completion's response is kept
// to read the tool_call_ids it emitted.
const maxCapturedResponse = 4 << 20

// capturedBody passes a response through and, when it is closed, hands
// what it read (up to maxCapturedResponse) to done, once.
type capturedBody struct {
	io.ReadCloser
	buf      bytes.Buffer
	complete bool // the upstream's body ended with io.EOF
	done     func(body []byte, complete bool)
	once     sync.Once
}

func (b *capturedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := maxCapturedResponse - b.buf.Len(); room > 0 && n > 0 {
		b.buf.Write(p[:min(n, room)])
	}
	if errors.Is(err, io.EOF) {
		b.complete = true
	}
	return n, err
}

func (b *capturedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() { b.done(b.buf.Bytes(), b.complete) })
	return err
}

// forwardedHeaders are the caller's headers the upstream may see; every
// other one (OpenAI-Organization, OpenAI-Project, cookies, the rollout's
// credentials, anything a caller invents) stays behind, so an agent cannot
// bill another organization or reach around the gateway's key.
var forwardedHeaders = []string{"Content-Type", "Accept", "User-Agent"}

func (h *Handler) proxy(c *gin.Context, upstream *url.URL, path string, body []byte, call models.GatewayCall) {
	record := func(status int) {
		call.Status = status
		call.DurationMS = float64(h.opts.Now().Sub(call.StartedAt).Microseconds()) / 1000
		if err := models.RecordCall(context.WithoutCancel(c.Request.Context()), h.db, call); err != nil {
			h.log.Error("record gateway call", "rollout_id", call.RolloutID, "err", err)
		}
	}
	rp := &httputil.ReverseProxy{
		Transport:     h.opts.UpstreamClient,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = upstream.Scheme, upstream.Host
			pr.Out.URL.Path = strings.TrimRight(upstream.Path, "/") + path
			pr.Out.URL.RawPath, pr.Out.URL.RawQuery = "", pr.In.URL.RawQuery
			pr.Out.Host = upstream.Host
			pr.Out.Body = io.NopCloser(bytes.NewReader(body))
			pr.Out.ContentLength = int64(len(body))
			// Only allow-listed headers pass: the rollout's credentials
			// and the caller's account headers never leave Gatehouse.
			out := http.Header{}
			for _, k := range forwardedHeaders {
				if v := pr.In.Header.Values(k); len(v) > 0 {
					out[k] = v
				}
			}
			pr.Out.Header = out
			if h.opts.UpstreamKey != "" {
				pr.Out.Header.Set("Authorization", "Bearer "+h.opts.UpstreamKey)
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			if !call.Completion || resp.StatusCode < 200 || resp.StatusCode > 299 {
				record(resp.StatusCode)
				return nil
			}
			// A completion counts only once its whole body passed: one the
			// upstream cut, or that timed out, is recorded as failed and
			// counts nothing.
			status := resp.StatusCode
			resp.Body = &capturedBody{ReadCloser: resp.Body, done: func(b []byte, complete bool) {
				if !complete {
					h.log.Warn("llm upstream response cut short; recorded as failed", "rollout_id", call.RolloutID)
					record(http.StatusBadGateway)
					return
				}
				record(status)
				telemetry.CountLLMTokens(path, b)
				ids := emittedToolCallIDs(b)
				if err := models.RecordEmitted(context.WithoutCancel(c.Request.Context()), h.db, call.ID, ids); err != nil {
					h.log.Error("record emitted tool calls", "rollout_id", call.RolloutID, "err", err)
				}
			}}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			record(http.StatusBadGateway)
			h.log.Warn("llm upstream failed", "rollout_id", call.RolloutID, "err", err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(`{"error":{"code":"llm_upstream_failed","message":"the LLM upstream did not answer"}}`))
		},
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), h.opts.UpstreamTimeout)
	defer cancel()
	rp.ServeHTTP(c.Writer, c.Request.WithContext(ctx))
}
