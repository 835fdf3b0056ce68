package runner

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/duplex/duplextest"
)

// TestLLMProxy_StreamsACompletionThatStartsBeforeTheRequestEnds: an
// upstream that starts its event stream while the agent's request body is
// still arriving reaches the agent whole, and counts once.
func TestLLMProxy_StreamsACompletionThatStartsBeforeTheRequestEnds(t *testing.T) {
	p, err := startLLMProxy(duplextest.Upstream(t)+"/v1", http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"m","stream":true,"messages":[` + strings.Repeat(" ", 200<<10) + `]}`
	got, err := duplextest.Post(t, p.URL()+"/chat/completions", body)
	if want := duplextest.Want(len(body)); err != nil || got != want {
		t.Fatalf("completion through the proxy = %q (err %v), want %q", got, err, want)
	}
	if n := p.Close(); n != 1 {
		t.Fatalf("proxy counted %d completions, want 1", n)
	}
}
