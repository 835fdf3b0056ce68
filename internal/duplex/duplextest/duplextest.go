// Package duplextest drives a proxy through the race duplex.Handler
// fixes: an upstream whose event stream starts before the request body has
// all arrived.
package duplextest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/duplex"
)

// Upstream serves, until the test ends, an event stream that starts at
// once, then reports how much of the request body it read and sends three
// more events and "done"; it returns the base URL.
func Upstream(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: duplex.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = rc.Flush()
		body, err := io.ReadAll(r.Body)
		_, _ = fmt.Fprintf(w, "data: read %d bytes err=%v\n\n", len(body), err)
		for i := range 3 {
			time.Sleep(20 * time.Millisecond)
			_, _ = fmt.Fprintf(w, "data: event %d\n\n", i)
			_ = rc.Flush()
		}
		_, _ = io.WriteString(w, "data: done\n\n")
	}))}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}

// Want is what a proxy must pass on from Upstream for a Post of bodyLen
// bytes.
func Want(bodyLen int) string {
	return fmt.Sprintf("read %d bytes err=<nil>|event 0|event 1|event 2|done", bodyLen)
}

// Post sends body to url in two parts, its first KiB at once and the
// rest only once the answer has begun (or after 300 ms, so a proxy that
// waits for the whole body still gets it), and returns the stream's events
// joined by "|", or the error that cut it. A rest under net/http's 256 KiB
// is what a server that is not full duplex consumes itself once the
// answer starts, racing the proxy's transport for it.
func Post(t *testing.T, url, body string) (string, error) {
	t.Helper()
	cut := min(len(body), 1<<10)
	first, second := body[:cut], body[cut:]
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, url, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(body))
	began := make(chan struct{})
	go func() {
		_, _ = io.WriteString(pw, first)
		select {
		case <-began:
		case <-time.After(300 * time.Millisecond):
		}
		for len(second) > 0 { // in pieces, so both readers get some
			n := min(len(second), 4<<10)
			_, _ = io.WriteString(pw, second[:n])
			second = second[n:]
			time.Sleep(100 * time.Microsecond)
		}
		_ = pw.Close()
	}()
	resp, err := http.DefaultClient.Do(req)
	close(began)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			events = append(events, strings.TrimPrefix(line, "data: "))
		}
	}
	return strings.Join(events, "|"), sc.Err()
}
