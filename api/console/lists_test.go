package console

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/flywheel"
	flymodels "github.com/gatehouse/gatehouse/models/flylab"
	fwmodels "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/modelstest"
	resmodels "github.com/gatehouse/gatehouse/models/research"
)

// listRows is what the list tests seed: 13 rows of each list, newest
// first by (created, id), with ties on created so that the id breaks them.
const listRows = 13

// listCreated spreads the rows over seconds, three to a second.
func listCreated(base time.Time, i int) time.Time { return base.Add(time.Duration(i/3) * time.Second) }

// seedLists stores rollouts, FlyLab sessions and research experiments.
// Even rows are owned by owner_a / in project p_a, odd ones by owner_b /
// p_b; every third rollout is queued (others completed) and every third
// session has a published bundle; experiments alternate two gates.
func seedLists(t *testing.T, db *gorm.DB) {
	t.Helper()
	base := time.Now().Truncate(time.Second).Add(-time.Hour)
	for i := range listRows {
		owner, project, status, gate := "owner_a", "p_a", fwmodels.StatusCompleted, "design_review"
		if i%2 == 1 {
			owner, project = "owner_b", "p_b"
		}
		if i%3 == 0 {
			status = fwmodels.StatusQueued
		}
		if i%4 == 0 {
			gate = "result_review"
		}
		at := listCreated(base, i)
		must(t, db.Create(&fwmodels.Rollout{ID: fmt.Sprintf("ro_%02d", i), Owner: owner, Status: status, TurnInput: "hi",
			DeadlineAt: at.Add(time.Hour), MaxAttempts: 3, CreatedAt: at, UpdatedAt: at}).Error)
		sid := fmt.Sprintf("sess_%02d", i)
		must(t, db.Create(&flymodels.Session{ID: sid, OwnerCredentialID: owner, OwnerName: "agent " + owner, CreatedAt: at}).Error)
		switch i % 3 {
		case 0:
			must(t, db.Create(&flymodels.EvidenceBundle{ID: "bundle_" + sid, SessionID: sid, OperationKey: "op_" + sid,
				ManifestHash: hashB, Export: "{}", CreatedAt: at}).Error)
		case 1:
			must(t, db.Create(&flymodels.Experiment{ID: "exp_" + sid, SessionID: sid, HypothesisID: "hyp", Status: flymodels.StatusAwaitingApproval,
				ProtocolHash: hashA, SeedManifestHash: hashA, Design: "{}", CreatedAt: at}).Error)
		}
		must(t, db.Create(&resmodels.Experiment{ID: fmt.Sprintf("rexp_%02d", i), ProjectID: project, Name: fmt.Sprintf("exp-%02d", i),
			Status: "planned", Gate: gate, CreatedAt: at, UpdatedAt: at}).Error)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// listHarness is a console over the real adapters on db, seeded.
func listHarness(t *testing.T, db *gorm.DB) *harness {
	t.Helper()
	seedLists(t, db)
	fw, err := flywheel.New(db, &fakeFlywheelTemporal{}, slog.New(slog.NewTextHandler(io.Discard, nil)), flywheel.Options{TaskQueue: "q"})
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessOn(t, db, func(o *Options) {
		o.Sources.Rollouts = newFlywheelSource(db, fw)
		o.Sources.Sessions = newFlyLabSource(db, nil, nil)
		o.Sources.Experiments = &researchSource{db: db}
	})
}

// walkList follows a list's next links from path and returns the ids of the
// rows (elements with the data attribute) in the order shown.
func walkList(t *testing.T, h *harness, ck *http.Cookie, path, rowAttr string) []string {
	t.Helper()
	var ids []string
	for pages := 0; path != ""; pages++ {
		if pages > listRows+1 {
			t.Fatalf("more pages than rows: the next links loop (at %s)", path)
		}
		rec := h.get(path, ck)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d: %s", path, rec.Code, rec.Body.String())
		}
		path = ""
		walk(parse(t, rec.Body.String()), func(n *html.Node) {
			if n.Type != html.ElementNode {
				return
			}
			if v := attr(n, rowAttr); v != "" && n.Data != "form" {
				ids = append(ids, v)
			}
			if n.Data == "a" && attr(n, "rel") == "next" {
				path = strings.TrimPrefix(attr(n, "href"), "http://example.test")
			}
		})
	}
	return ids
}

// wantIDs are the ids prefix%02d of the seeded rows keep selects, newest
// first (the highest index is the newest and wins ties).
func wantIDs(prefix string, keep func(i int) bool) []string {
	var out []string
	for i := listRows - 1; i >= 0; i-- {
		if keep(i) {
			out = append(out, fmt.Sprintf("%s%02d", prefix, i))
		}
	}
	return out
}

func TestLists_WalkEveryPageOnceWithFiltersOnEveryDatabase(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		h := listHarness(t, db)
		ck, _ := h.session()
		all := func(int) bool { return true }
		cases := []struct {
			name, path, attr, prefix string
			keep                     func(int) bool
		}{
			{"rollouts", "/console/rollouts?size=3", "data-rollout", "ro_", all},
			{"rollouts by state and owner", "/console/rollouts?size=2&state=queued&owner=owner_b", "data-rollout", "ro_",
				func(i int) bool { return i%3 == 0 && i%2 == 1 }},
			{"rollouts default page", "/console/rollouts", "data-rollout", "ro_", all},
			{"sessions", "/console/sessions?size=4", "data-session", "sess_", all},
			{"sessions by owner key", "/console/sessions?size=2&owner=owner_a", "data-session", "sess_", func(i int) bool { return i%2 == 0 }},
			{"sessions saved", "/console/sessions?size=2&gate=saved", "data-session", "sess_", func(i int) bool { return i%3 == 0 }},
			{"sessions awaiting approval", "/console/sessions?size=1&gate=awaiting_approval", "data-session", "sess_", func(i int) bool { return i%3 == 1 }},
			{"sessions open", "/console/sessions?gate=open", "data-session", "sess_", func(i int) bool { return i%3 == 2 }},
			{"experiments", "/console/experiments?size=5", "data-experiment", "rexp_", all},
			{"experiments by project and gate", "/console/experiments?size=1&project=p_a&gate=design_review", "data-experiment", "rexp_",
				func(i int) bool { return i%2 == 0 && i%4 != 0 }},
		}
		for _, tc := range cases {
			got := walkList(t, h, ck, tc.path, tc.attr)
			if want := wantIDs(tc.prefix, tc.keep); !slices.Equal(got, want) {
				t.Errorf("%s: walked %v, want every row once in order %v", tc.name, got, want)
			}
		}
	})
}

func TestLists_FilterValuesAreParametersAndEscaped(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		h := listHarness(t, db)
		ck, _ := h.session()
		injection := url.QueryEscape(`' OR 1=1 --`)
		for _, p := range []struct{ path, attr string }{
			{"/console/rollouts?owner=" + injection, "data-rollout"},
			{"/console/sessions?owner=" + injection, "data-session"},
			{"/console/experiments?project=" + injection, "data-experiment"},
			{"/console/experiments?gate=" + injection, "data-experiment"},
		} {
			if got := walkList(t, h, ck, p.path, p.attr); len(got) != 0 {
				t.Errorf("%s listed %v: the filter value reached the SQL", p.path, got)
			}
		}
		hostile := `"><script>alert(1)</script>'`
		rec := h.get("/console/experiments?project="+url.QueryEscape(hostile), ck)
		if rec.Code != http.StatusOK {
			t.Fatalf("hostile filter = %d", rec.Code)
		}
		body := rec.Body.String()
		if strings.Contains(body, "<script>alert") {
			t.Fatal("the filter value is in the page unescaped")
		}
		if got := inputValue(t, body, "project"); got != hostile {
			t.Errorf("the filter box shows %q, want the value back as typed", got)
		}
		// The Temporal link of the filtered list quotes the value as a
		// string literal the value cannot end.
		var query string
		walk(parse(t, body), func(n *html.Node) {
			if n.Type == html.ElementNode && n.Data == "a" && strings.Contains(attr(n, "href"), "GatehouseProject") {
				u, err := url.Parse(attr(n, "href"))
				if err != nil {
					t.Fatal(err)
				}
				query = u.Query().Get("query")
			}
		})
		want := `GatehouseKind="research-experiment" AND GatehouseProject="\"><script>alert(1)</script>'"`
		if query != want {
			t.Errorf("Temporal list query %q, want %q", query, want)
		}
	})
}

func TestLists_BadCursorSizeOrFilterIsA400ErrorPage(t *testing.T) {
	t.Parallel()
	h := listHarness(t, modelstest.SQLite(t))
	ck, _ := h.session()
	notATime := "eyJ0Ijoibm90LWEtdGltZSIsImkiOiJyb18wMSJ9" // {"t":"not-a-time","i":"ro_01"}
	cases := []struct{ path, code string }{
		{"/console/rollouts?cursor=garbage!", "bad_cursor"},
		{"/console/rollouts?cursor=" + notATime, "bad_cursor"},
		{"/console/sessions?cursor=e30", "bad_cursor"}, // {}
		{"/console/experiments?cursor=" + strings.Repeat("A", 600), "bad_cursor"},
		{"/console/rollouts?size=201", "bad_page_size"},
		{"/console/sessions?size=0", "bad_page_size"},
		{"/console/experiments?size=ten", "bad_page_size"},
		{"/console/rollouts?state=everything", "bad_filter"},
		{"/console/sessions?gate=%27%20OR%201%3D1", "bad_filter"},
		{"/console/experiments?project=" + strings.Repeat("p", 201), "bad_filter"},
	}
	for _, tc := range cases {
		rec := h.get(tc.path, ck)
		if rec.Code != http.StatusBadRequest {
			t.Errorf("GET %s = %d, want 400", tc.path, rec.Code)
			continue
		}
		mustContain(t, rec.Body.String(), `data-code="`+tc.code+`"`, `role="alert"`)
	}
	// A cursor the console issued works, with the filters the link keeps.
	next := nextLink(t, h.get("/console/rollouts?size=2&owner=owner_a", ck).Body.String())
	u, _ := url.Parse(next)
	if u.Query().Get("owner") != "owner_a" || u.Query().Get("size") != "2" || u.Query().Get("cursor") == "" {
		t.Fatalf("next link %s drops the filter or size", next)
	}
	if rec := h.get(next, ck); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `rel="first"`) {
		t.Fatalf("GET %s = %d, want the second page with a first-page link", next, rec.Code)
	}
}

func nextLink(t *testing.T, body string) string {
	t.Helper()
	var next string
	walk(parse(t, body), func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "a" && attr(n, "rel") == "next" {
			next = attr(n, "href")
		}
	})
	if next == "" {
		t.Fatal("the page has no next link")
	}
	return next
}
