package prodlike

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/gatehouse/gatehouse/internal/duplex"
)

// Front is a round-robin HTTP reverse proxy over the api replicas with no
// session affinity: request i goes to replica i mod N, whoever sent it, as
// a load balancer without stickiness does. Responses stream (SSE included).
type Front struct {
	// URL is the address clients use, and the api's GATEHOUSE_PUBLIC_URL.
	URL string

	backends []*url.URL
	next     atomic.Uint64
	served   []atomic.Int64
	server   *http.Server
	listener net.Listener
}

// listenFront reserves the front's address before the api replicas start,
// since they need it as their public URL.
func listenFront() (*Front, error) {
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", loopback(ports[0]))
	if err != nil {
		return nil, err
	}
	return &Front{URL: "http://" + l.Addr().String(), listener: l}, nil
}

// NewFront serves a round-robin front over backends (base URLs) on a
// free loopback port, for a test that brings its own replicas; Close
// stops it.
func NewFront(backends []string) (*Front, error) {
	f, err := listenFront()
	if err != nil {
		return nil, err
	}
	if err := f.serve(backends); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// Close stops the front.
func (f *Front) Close() { f.close() }

// serve starts proxying to backends (base URLs of the api replicas).
func (f *Front) serve(backends []string) error {
	for _, b := range backends {
		u, err := url.Parse(b)
		if err != nil {
			return err
		}
		f.backends = append(f.backends, u)
	}
	f.served = make([]atomic.Int64, len(f.backends))
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			i := int(f.next.Add(1)-1) % len(f.backends)
			f.served[i].Add(1)
			r.SetURL(f.backends[i])
			r.Out.Host = r.In.Host // the api sees the front's Host, as behind a real balancer
			r.SetXForwarded()
		},
		FlushInterval: -1,
		// Keep upstream connections alive across bursts, as a balancer's
		// upstream pool does (the default keeps 2 per replica idle).
		Transport: upstreamTransport(),
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(`{"error":{"code":"bad_gateway","message":"the api replica did not answer","retryable":true}}`))
		},
	}
	f.server = &http.Server{Handler: duplex.Handler(proxy), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := f.server.Serve(f.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // clients see the front refuse connections
		}
	}()
	return nil
}

// upstreamTransport is http.DefaultTransport with room for a burst of
// concurrent clients' connections to each replica to stay idle.
func upstreamTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return t
}

// Served is how many requests each api replica received through the front.
func (f *Front) Served() []int64 {
	out := make([]int64, len(f.served))
	for i := range f.served {
		out[i] = f.served[i].Load()
	}
	return out
}

func (f *Front) close() {
	if f.server == nil {
		_ = f.listener.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = f.server.Shutdown(ctx)
}
