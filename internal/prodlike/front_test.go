package prodlike

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFront_StreamsAResponseThatStartsBeforeTheRequestBodyEnds is the
// race a Streamable HTTP answer runs into behind the front: the replica
// answers (headers, then an event stream) while the front is still passing
// the request body on. A front whose server consumes and closes the
// request body once the answer starts cuts the upstream connection, and
// with it the stream ("use of closed network connection"; the MCP client
// sees "request terminated without response"). Here the client sends the
// second half of its body only after the answer has begun, so the answer
// always starts first; the whole stream and the whole body must pass.
func TestFront_StreamsAResponseThatStartsBeforeTheRequestBodyEnds(t *testing.T) {
	upstream := startTestUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		body, err := io.ReadAll(r.Body)
		_, _ = fmt.Fprintf(w, "data: read %d bytes err=%v\n\n", len(body), err)
		for i := range 3 {
			time.Sleep(20 * time.Millisecond)
			_, _ = fmt.Fprintf(w, "data: event %d\n\n", i)
			_ = http.NewResponseController(w).Flush()
		}
		_, _ = io.WriteString(w, "data: done\n\n")
	}))
	front, err := NewFront([]string{upstream})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(front.Close)

	first, second := strings.Repeat("a", 300), strings.Repeat("b", 300)
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, front.URL+"/mcp", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(first) + len(second))
	began := make(chan struct{})
	go func() {
		_, _ = io.WriteString(pw, first)
		// The rest goes out once the answer has begun (or after a
		// moment: a front that waits for the whole body before passing
		// the answer on would otherwise wait forever).
		select {
		case <-began:
		case <-time.After(300 * time.Millisecond):
		}
		_, _ = io.WriteString(pw, second)
		_ = pw.Close()
	}()
	resp, err := http.DefaultClient.Do(req)
	close(began)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			events = append(events, strings.TrimPrefix(line, "data: "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("stream cut after %q: %v", events, err)
	}
	want := []string{"read 600 bytes err=<nil>", "event 0", "event 1", "event 2", "done"}
	if strings.Join(events, "|") != strings.Join(want, "|") {
		t.Fatalf("events through the front = %q, want %q", events, want)
	}
}

// startTestUpstream serves h on a free loopback port until the test ends
// and returns its base URL.
func startTestUpstream(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}
