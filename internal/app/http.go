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

// startHTTP listens on addr (port 0 picks one) and serves handler.
func startHTTP(addr string, handler http.Handler, log *slog.Logger) (*httpServer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &httpServer{
		srv: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       2 * time.Minute,
			WriteTimeout:      10 * time.Minute, // long-polls and streamed LLM responses
			IdleTimeout:       2 * time.Minute,
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
