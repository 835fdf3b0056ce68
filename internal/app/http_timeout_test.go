package app

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHTTPServer_CutsClientSendingHeadersByteByByte starts the API's HTTP
// server with a 300 ms header timeout: a client that sends its request line
// and headers one byte every 50 ms is disconnected without an answer, while
// a client sending the same request at once gets 200.
func TestHTTPServer_CutsClientSendingHeadersByteByByte(t *testing.T) {
	timeouts := defaultHTTPTimeouts
	timeouts.readHeader = 300 * time.Millisecond
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	srv, err := startHTTPWith("127.0.0.1:0", ok, slog.New(slog.DiscardHandler), timeouts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.srv.Close() }() // test cleanup: a close error fails nothing
	const request = "GET /readyz HTTP/1.1\r\nHost: gatehouse.test\r\nUser-Agent: slowloris\r\nAccept: */*\r\n\r\n"

	fast := dialServer(t, srv.Addr())
	if _, err := io.WriteString(fast, request); err != nil {
		t.Fatal(err)
	}
	if status := readStatus(fast); !strings.Contains(status, "200") {
		t.Fatalf("a prompt client must be served, got %q", status)
	}

	slow := dialServer(t, srv.Addr())
	start := time.Now()
	var writeErr error
	sent := 0
	for ; sent < len(request) && writeErr == nil; sent++ {
		_, writeErr = slow.Write([]byte{request[sent]})
		time.Sleep(50 * time.Millisecond)
	}
	cut := time.Since(start)
	status := readStatus(slow)
	// Trickling the whole request takes ~4 s; the server must hang up long
	// before, and must never serve it.
	if writeErr == nil || strings.Contains(status, "200") || cut > 2*time.Second {
		t.Fatalf("slow client not cut: sent %d/%d bytes in %s, write error %v, answer %q", sent, len(request), cut, writeErr, status)
	}
	t.Logf("slow client cut after %s and %d bytes (answer %q)", cut.Round(time.Millisecond), sent, status)
}

func dialServer(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() }) // test cleanup
	return c
}

// readStatus returns the response's status line, or "" once the server
// has closed the connection without one.
func readStatus(c net.Conn) string {
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	return strings.TrimSpace(line)
}
