package research

import (
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

// TestCitationViewShape pins a citation's bytes to what the untyped map
// wrote: the reference under its kind's key (arxiv as arxiv_id) among the
// other keys in sorted order, and targets [] when there are none.
func TestCitationViewShape(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 30, 0, 0, time.UTC)
	tail := `"created_at":"2026-12-01T12:30:00Z",`
	for _, tc := range []struct {
		name string
		c    models.Citation
		want string
	}{
		{"doi", models.Citation{ID: "cite_1", RefKind: "doi", Ref: "10.1/x", Title: "A <b> & c", Note: "n", TargetsJSON: `[{"type":"claim","id":"cl_1"}]`, CreatedAt: at},
			`{"citation_id":"cite_1",` + tail + `"doi":"10.1/x","note":"n","targets":[{"type":"claim","id":"cl_1"}],"title":"A \u003cb\u003e \u0026 c"}`},
		{"url", models.Citation{ID: "cite_2", RefKind: "url", Ref: "https://a.example/p?q=1&r=2", TargetsJSON: "[]", CreatedAt: at},
			`{"citation_id":"cite_2",` + tail + `"note":"","targets":[],"title":"","url":"https://a.example/p?q=1\u0026r=2"}`},
		{"arxiv", models.Citation{ID: "cite_3", RefKind: "arxiv", Ref: "2401.01234v2", TargetsJSON: "", CreatedAt: at},
			`{"arxiv_id":"2401.01234v2","citation_id":"cite_3",` + tail + `"note":"","targets":[],"title":""}`},
		{"empty reference", models.Citation{ID: "cite_4", RefKind: "doi", CreatedAt: at},
			`{"citation_id":"cite_4",` + tail + `"doi":"","note":"","targets":[],"title":""}`},
	} {
		if got := marshalJSON(t, citationView(tc.c)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if got := marshalJSON(t, litCiteAnswer{Citation: citationView(tc.c), Duplicate: true}); got != `{"citation":`+tc.want+`,"duplicate":true}` {
			t.Errorf("%s cite answer: %s", tc.name, got)
		}
	}
}
