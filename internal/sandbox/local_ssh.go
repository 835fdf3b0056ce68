package sandbox

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"

	"golang.org/x/crypto/ssh"
)

// errKeyRefused is what a client offering another key is told.
var errKeyRefused = errors.New("sandbox: key not authorized for this sandbox")

// server is one sandbox's SSH endpoint.
type server struct {
	endpoint Endpoint
	ln       net.Listener
	cfg      *ssh.ServerConfig
	runner   *runner

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// newServer listens on loopback and serves sessions for spec's key only,
// running commands in work as cred (nil: this process's user), confined as
// confine says, and recording them in runs.
func newServer(spec Spec, work, runs string, cred *syscall.Credential, host string, env []string, confine confinement) (*server, error) {
	authorized, _, _, _, err := ssh.ParseAuthorizedKey([]byte(spec.PublicKey))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPublicKey, err)
	}
	want := authorized.Marshal()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	signer, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		return nil, err
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(c ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if c.User() == LocalUser && subtle.ConstantTimeCompare(k.Marshal(), want) == 1 {
				return nil, nil
			}
			return nil, errKeyRefused
		},
		MaxAuthTries: 3,
	}
	cfg.AddHostKey(signer)
	ln, err := listen(host, spec.Port)
	if err != nil {
		return nil, err
	}
	s := &server{ln: ln, cfg: cfg, conns: map[net.Conn]struct{}{},
		runner:   newRunner(work, runs, spec, cred, env, confine),
		endpoint: Endpoint{Host: ln.Addr().(*net.TCPAddr).IP.String(), Port: ln.Addr().(*net.TCPAddr).Port, User: LocalUser, Workdir: work}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

func (s *server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	sc, chans, reqs, err := ssh.NewServerConn(c, s.cfg)
	if err != nil {
		return
	}
	defer func() { _ = sc.Close() }() // the connection is over; its close error has no reader
	go ssh.DiscardRequests(reqs)      // no global requests: no port forwarding
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.Prohibited, "only sessions are allowed")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go s.session(ch, creqs)
	}
}

// session answers one session channel: env is ignored, exec runs one
// recorded command; shells, ptys and subsystems are refused so every
// command is a run.
func (s *server) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer func() { _ = ch.Close() }() // the session is over; its close error has no reader
	for req := range reqs {
		switch req.Type {
		case "env":
			_ = req.Reply(true, nil)
		case "exec":
			var p struct{ Command string }
			if ssh.Unmarshal(req.Payload, &p) != nil || p.Command == "" {
				_ = req.Reply(false, nil)
				continue
			}
			code := s.runner.run(p.Command, func() { _ = req.Reply(true, nil) }, ch, ch, ch.Stderr())
			_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{uint32(code)}))
			return
		default:
			_ = req.Reply(false, nil)
		}
	}
}

// close stops listening, drops connections and kills running commands.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	_ = s.ln.Close()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.runner.killAll()
	s.wg.Wait()
}
