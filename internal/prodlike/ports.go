package prodlike

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
)

// Temporal stores membership ports as smallint, so every port a stack
// hands out stays below 32768; the kernel's ephemeral range (where :0
// binds land) starts above it, which keeps the two apart.
const (
	portLow  = 20000
	portHigh = 32000
)

// freePorts reserves n distinct free loopback TCP ports below 32768. The
// listeners are held until all n are found, then released for the caller.
func freePorts(n int) ([]int, error) {
	held := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 50*n {
			return nil, fmt.Errorf("prodlike: no %d free ports in %d–%d", n, portLow, portHigh)
		}
		p := portLow + rand.IntN(portHigh-portLow)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		held = append(held, l)
		ports = append(ports, p)
	}
	return ports, nil
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
