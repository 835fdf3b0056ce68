package runner

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

// TestLLMProxy_StreamsACompletionThatStartsBeforeTheRequestEnds: an
// upstream that starts its event stream while the agent's request body is
// still arriving must reach the agent whole, and count once. A proxy whose
// server consumes and closes the body once the answer starts aborts the
// upstream connection and cuts the completion short.
func TestLLMProxy_StreamsACompletionThatStartsBeforeTheRequestEnds(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	upstream := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		body, err := io.ReadAll(r.Body)
		_, _ = fmt.Fprintf(w, "data: read %d bytes err=%v\n\n", len(body), err)
		for i := range 3 {
			time.Sleep(20 * time.Millisecond)
			_, _ = fmt.Fprintf(w, "data: chunk %d\n\n", i)
			_ = http.NewResponseController(w).Flush()
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})}
	go func() { _ = upstream.Serve(l) }()
	t.Cleanup(func() { _ = upstream.Close() })

	p, err := startLLMProxy("http://"+l.Addr().String()+"/v1", http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	first, second := `{"model":"m","stream":true,"messages":[`, strings.Repeat(" ", 500)+`]}`
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, p.URL()+"/chat/completions", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(first) + len(second))
	began := make(chan struct{})
	go func() {
		_, _ = io.WriteString(pw, first)
		select { // the rest once the answer has begun, or after a moment
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
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			events = append(events, strings.TrimPrefix(line, "data: "))
		}
	}
	_ = resp.Body.Close()
	want := fmt.Sprintf("read %d bytes err=<nil>|chunk 0|chunk 1|chunk 2|[DONE]", len(first)+len(second))
	if got := strings.Join(events, "|"); sc.Err() != nil || got != want {
		t.Fatalf("completion through the proxy = %q (err %v), want %q", got, sc.Err(), want)
	}
	if n := p.Close(); n != 1 {
		t.Fatalf("proxy counted %d completions, want 1", n)
	}
}
