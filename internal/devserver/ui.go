package devserver

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"github.com/temporalio/ui-server/v2/server/server_options"
)

// uiServer is the Temporal Web UI, served from assets embedded in its module.
type uiServer struct {
	srv  *uiserver.Server
	addr string
}

// startUI starts the Web UI on addr and waits until it answers.
func startUI(addr, frontendAddr string) (*uiServer, error) {
	host, port, err := resolvePort(addr)
	if err != nil {
		return nil, fmt.Errorf("ui address: %w", err)
	}
	// The UI server exits the process when it cannot listen; check first.
	if err := ensurePortFree(host, port); err != nil {
		return nil, fmt.Errorf("temporal ui %s:%d: %w", host, port, err)
	}
	srv := uiserver.NewServer(server_options.WithConfigProvider(&uiconfig.Config{
		Host:                host,
		Port:                port,
		TemporalGRPCAddress: frontendAddr,
		EnableUI:            true,
		DefaultNamespace:    "default",
		CORS:                uiconfig.CORS{CookieInsecure: true},
		HideLogs:            true,
		DisableNewsFetch:    true,
	}))
	go func() { _ = srv.Start() }()
	u := &uiServer{srv: srv, addr: net.JoinHostPort(host, strconv.Itoa(port))}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + u.addr + "/healthz")
		if err == nil {
			_ = resp.Body.Close() // only the answer mattered
			return u, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return u, nil
}

func (u *uiServer) stop() { u.srv.Stop() }
