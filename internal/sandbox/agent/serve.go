package agent

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gatehouse/gatehouse/internal/sandbox"
)

// Config is what one sandbox agent serves.
type Config struct {
	UID       string
	PublicKey string
	// Token is the bearer token inspections must carry; TokenSHA256, its
	// hex SHA-256, may stand in for it (a Pod spec carries only that).
	Token       string
	TokenSHA256 string
	// Root holds the sandbox's runs and working directory.
	Root string
	// Listen is the host both servers bind ("" is every interface).
	Listen string
	// SSHPort and InspectPort are the ports to serve (0: any free one).
	SSHPort, InspectPort int
	TimeLimit            time.Duration
	CPU                  float64
	// MemoryMB, when set, caps each command's address space; a Pod leaves
	// it 0, as its cgroup limits memory (an address-space cap breaks CUDA
	// and runtimes that reserve large address ranges).
	MemoryMB int
	// Env is what commands start from (see CommandEnv).
	Env []string
}

// Agent is a running sandbox agent.
type Agent struct {
	// SSH is the sandbox's SSH endpoint; InspectURL the inspection server.
	SSH        sandbox.Endpoint
	InspectURL string

	local  *sandbox.Local
	uid    string
	http   *http.Server
	done   chan error
	cancel context.CancelFunc
}

// Start starts the SSH server (recording every command as a run) and the
// inspection server. A requested port that is taken is an error: the Pod
// advertises its ports.
func Start(cfg Config) (*Agent, error) {
	if cfg.TokenSHA256 == "" && cfg.Token != "" {
		cfg.TokenSHA256 = TokenSHA256(cfg.Token)
	}
	if cfg.UID == "" || cfg.PublicKey == "" || cfg.TokenSHA256 == "" || cfg.Root == "" {
		return nil, errors.New("sandbox agent: uid, public key, token (or its sha256) and root are required")
	}
	host := cfg.Listen
	if host == "" {
		host = "0.0.0.0"
	}
	l := sandbox.LocalAt(cfg.Root)
	l.Listen, l.Env = host, cfg.Env
	// The Pod, one per sandbox, is the boundary: it holds no Gatehouse
	// files, and its image need not have bubblewrap or user namespaces.
	l.SetUnconfined(true)
	ep, err := l.Provision(context.Background(), sandbox.Spec{UID: cfg.UID, Provider: sandbox.LocalName, PublicKey: cfg.PublicKey,
		TimeLimit: cfg.TimeLimit, CPU: cfg.CPU, MemoryMB: cfg.MemoryMB, Port: cfg.SSHPort})
	if err != nil {
		return nil, err
	}
	if cfg.SSHPort > 0 && ep.Port != cfg.SSHPort {
		_ = l.Destroy(context.Background(), cfg.UID)
		return nil, fmt.Errorf("sandbox agent: SSH port %d is taken", cfg.SSHPort)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(cfg.InspectPort)))
	if err != nil {
		_ = l.Destroy(context.Background(), cfg.UID)
		return nil, fmt.Errorf("sandbox agent: inspection port: %w", err)
	}
	// Requests run under base, which Close cancels: a long poll in flight
	// ends at once instead of holding the shutdown.
	base, cancel := context.WithCancel(context.Background())
	a := &Agent{SSH: ep, local: l, uid: cfg.UID, done: make(chan error, 1), cancel: cancel,
		InspectURL: "http://" + ln.Addr().String(),
		http: &http.Server{Handler: Handler(l, cfg.UID, cfg.TokenSHA256), ReadHeaderTimeout: 10 * time.Second,
			BaseContext: func(net.Listener) context.Context { return base }}}
	go func() { a.done <- a.http.Serve(ln) }()
	return a, nil
}

// Close stops both servers; the runs and the working directory stay.
func (a *Agent) Close() error {
	a.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := a.http.Shutdown(ctx)
	a.local.Stop(a.uid)
	return err
}

// Serve runs an agent until ctx ends.
func Serve(ctx context.Context, cfg Config) error {
	a, err := Start(cfg)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return a.Close()
	case err := <-a.done:
		_ = a.Close()
		return err
	}
}
