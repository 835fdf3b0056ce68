package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// httpServer serves the API with timeouts that cut slow clients.
type httpServer struct {
	srv      *http.Server
	listener net.Listener
	done     chan error
}

// httpTimeouts bound how long a client may take over each part of a
// request; a client slower than that is disconnected.
type httpTimeouts struct {
	readHeader, read, write, idle time.Duration
}

// defaultHTTPTimeouts are the production limits.
var defaultHTTPTimeouts = httpTimeouts{
	readHeader: 10 * time.Second,
	read:       2 * time.Minute,
	write:      10 * time.Minute, // long-polls and streamed LLM responses
	idle:       2 * time.Minute,
}

// startHTTP listens on addr (port 0 picks one) and serves handler.
func startHTTP(addr string, handler http.Handler, log *slog.Logger) (*httpServer, error) {
	return startHTTPWith(addr, handler, log, defaultHTTPTimeouts)
}

// startHTTPWith is startHTTP with explicit timeouts (tests use short ones).
func startHTTPWith(addr string, handler http.Handler, log *slog.Logger, t httpTimeouts) (*httpServer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &httpServer{
		srv: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: t.readHeader,
			ReadTimeout:       t.read,
			WriteTimeout:      t.write,
			IdleTimeout:       t.idle,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		listener: l,
		done:     make(chan error, 1),
	}
	go func() {
		err := s.srv.Serve(l)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	return s, nil
}

// Addr is the bound address.
func (s *httpServer) Addr() string { return s.listener.Addr().String() }

// shutdown stops accepting and drains in-flight requests until ctx ends.
func (s *httpServer) shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	return err
}

// doneOrNil is the channel that reports the server's end; a nil server
// (a listener the role does not have) never ends.
func (s *httpServer) doneOrNil() <-chan error {
	if s == nil {
		return nil
	}
	return s.done
}
