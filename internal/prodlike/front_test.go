package prodlike

import (
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/duplex/duplextest"
)

// TestFront_StreamsAResponseThatStartsBeforeTheRequestBodyEnds is the
// race a Streamable HTTP answer runs into behind the front: the replica
// answers (headers, then an event stream) while the front is still passing
// the request body on. A front whose server consumes and closes the
// request body once the answer starts cuts the upstream connection, and
// with it the stream ("use of closed network connection"; the MCP client
// sees "request terminated without response").
func TestFront_StreamsAResponseThatStartsBeforeTheRequestBodyEnds(t *testing.T) {
	front, err := NewFront([]string{duplextest.Upstream(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(front.Close)
	body := strings.Repeat("a", 200<<10)
	got, err := duplextest.Post(t, front.URL+"/mcp", body)
	if want := duplextest.Want(len(body)); err != nil || got != want {
		t.Fatalf("stream through the front = %q (err %v), want %q", got, err, want)
	}
}
