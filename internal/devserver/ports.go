package devserver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// resolvePort splits addr and picks a free port when it is 0.
func resolvePort(addr string) (string, int, error) {
	host, port, err := splitAddr(addr)
	if err != nil || port != 0 {
		return host, port, err
	}
	ports, err := freePorts(host, 1)
	if err != nil {
		return "", 0, err
	}
	return host, ports[0], nil
}

// splitAddr splits addr (default 127.0.0.1:0; an empty host is loopback)
// and checks its port.
func splitAddr(addr string) (string, int, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	if host == "" {
		host = "127.0.0.1"
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port %q", portStr)
	}
	return host, port, nil
}

// Picked ports come from [pickLow, pickHigh): below the kernel's
// ephemeral range (32768 and up on Linux by default), where outgoing
// connections take their ports and :0 binds land, and below the range the
// production-topology stack picks from (internal/prodlike), so neither
// can take a port picked here between its pick and its bind.
const (
	pickLow  = 10000
	pickHigh = 20000
)

// picked are the ports this process handed out: two servers starting at
// once (parallel tests) never get the same one.
var picked = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePorts picks n distinct free ports on host, none handed out before
// by this process; each is held until all n are found.
func freePorts(host string, n int) ([]int, error) {
	picked.Lock()
	defer picked.Unlock()
	held := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 100*n {
			return nil, fmt.Errorf("devserver: no %d free ports in %d-%d", n, pickLow, pickHigh)
		}
		p := pickLow + rand.IntN(pickHigh-pickLow)
		if picked.ports[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			continue
		}
		held = append(held, l)
		ports = append(ports, p)
		picked.ports[p] = true
	}
	return ports, nil
}

// ErrPortInUse is the error (wrapped) of a start whose port something
// else already listens on: choose another address, or pick free ports again.
var ErrPortInUse = errors.New("port is in use (set another address)")

// ensurePortFree fails clearly when something already listens on the port,
// instead of letting a server die deep inside its start-up.
func ensurePortFree(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPortInUse, err)
	}
	return l.Close()
}
