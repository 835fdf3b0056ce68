package devserver

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// resolvePort splits addr and picks a free port when it is 0.
func resolvePort(addr string) (string, int, error) {
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
	if port == 0 {
		ports, err := freePorts(host, 1)
		if err != nil {
			return "", 0, err
		}
		port = ports[0]
	}
	return host, port, nil
}

// freePorts asks the kernel for n distinct free ports on host.
func freePorts(host string, n int) ([]int, error) {
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
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
