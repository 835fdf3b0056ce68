package e2e

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsole_BrowserApprovesAPendingFlyLabExperiment drives the operator
// console in a real headless Chromium: a missing session is sent to sign
// in, the operator signs in with the operator token, watches a FlyLab
// experiment designed through the API appear in the pending list without a
// reload, has a forged CSRF token refused (the experiment stays pending),
// approves, and the agent's next inspect_flylab_state reports the approved
// protocol hash.
func TestConsole_BrowserApprovesAPendingFlyLabExperiment(t *testing.T) {
	chromium := consoleChromium(t)
	s := Shared(t)
	agent := consoleMintAgentKey(t, s)

	bctx := consoleBrowser(t, chromium)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, actions...); err != nil {
			consoleScreenshot(t, bctx, "failed-"+strings.ReplaceAll(what, " ", "-"))
			t.Fatalf("%s: %v", what, err)
		}
	}
	location := func() string {
		t.Helper()
		loc, err := chromedp.Run(bctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}

	// A browser without a session is sent to sign in.
	step("open the console", chromedp.Navigate(s.APIURL+"/console/approvals"), chromedp.WaitVisible(chromedp.CSS("#token")))
	if !strings.HasPrefix(location(), s.APIURL+"/console/signin?next=") {
		t.Fatalf("without a session the console went to %s, want the sign-in page", location())
	}
	// An agent key is refused at sign-in.
	step("sign in with the agent key",
		chromedp.SendKeys(chromedp.CSS("#token"), agent),
		chromedp.Click(chromedp.CSS("form.signin button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#error")))
	consoleExpectText(t, bctx, "#error", "Agent keys cannot open the console")

	step("sign in with the operator token",
		chromedp.SendKeys(chromedp.CSS("#token"), s.OperatorToken),
		chromedp.Click(chromedp.CSS("form.signin button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("#pending")))
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[bool]("(window.__consoleMarker = 'kept', true)")); err != nil {
		t.Fatal(err)
	}

	// The experiment is designed after the page loaded; the live list shows it.
	expID, hash := consoleDesignExperiment(t, s, agent)
	section := `section[data-experiment="` + expID + `"]`
	step("see the pending approval appear", chromedp.WaitVisible(chromedp.CSS(section+" code.hash")))
	consoleExpectText(t, bctx, section+" code.hash", hash)
	if marker, err := chromedp.Run(bctx, chromedp.Evaluate[string]("window.__consoleMarker || ''")); err != nil || marker != "kept" {
		t.Fatalf("the page reloaded to show the approval (marker %q, %v); want a live update", marker, err)
	}

	consoleScreenshot(t, bctx, "console-pending")
	consoleA11y(t, bctx)

	// A forged CSRF token is refused and changes nothing.
	step("forge the CSRF token", chromedp.SetValue(chromedp.CSS(section+` form.approve input[name="csrf_token"]`), "forged"))
	forged := consoleSubmit(t, bctx, section+" form.approve button")
	if forged != http.StatusForbidden {
		t.Fatalf("approve with a forged CSRF token answered %d, want 403", forged)
	}
	consoleExpectText(t, bctx, "#error", "security token")
	if gate := consoleHumanGate(t, s, agent); gate["status"] != "required" || gate["approved_protocol_hash"] != nil {
		t.Fatalf("after a forged approval the gate is %v; want still required", gate)
	}

	// A request without the session cookie is refused and changes nothing.
	form := url.Values{"csrf_token": {"x"}, "protocol_hash": {hash}}.Encode()
	resp, err := http.Post(s.APIURL+"/console/approvals/"+expID+"/approve", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("approve without a session answered %d, want 403", resp.StatusCode)
	}

	// Approve for real.
	step("back to the list", chromedp.Navigate(s.APIURL+"/console/approvals"), chromedp.WaitVisible(chromedp.CSS(section)))
	if code := consoleSubmit(t, bctx, section+" form.approve button"); code != http.StatusOK {
		t.Fatalf("approve answered %d after its redirect, want 200", code)
	}
	step("see the approval notice", chromedp.WaitVisible(chromedp.CSS("#notice")))
	consoleExpectText(t, bctx, "#notice", "Approved experiment "+expID)
	consoleScreenshot(t, bctx, "console-approved")

	gate := consoleHumanGate(t, s, agent)
	if gate["status"] != "satisfied" || gate["approved_protocol_hash"] != hash {
		t.Fatalf("inspect_flylab_state after the console approval: gate %v, want approved %s", gate, hash)
	}
}

// TestConsole_BrowserShowsEvidenceAndSessions saves a real evidence bundle
// through the FlyLab tools, then opens it in the console: one SVG path per
// run coloured by condition, the metric panel, a working export download,
// and the session with its artifact manifest on the sessions page.
func TestConsole_BrowserShowsEvidenceAndSessions(t *testing.T) {
	chromium := consoleChromium(t)
	s := Shared(t)
	agent := consoleMintAgentKey(t, s)
	expID, hash := consoleDesignExperiment(t, s, agent)
	consoleApproveOverREST(t, s, expID, hash)
	bundleID := consoleFollowNextActions(t, s, agent)
	if bundleID == "" {
		t.Fatal("no evidence bundle id after save_fly_evidence")
	}

	bctx := consoleBrowser(t, chromium)
	consoleSignIn(t, bctx, s)
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("open the evidence list", chromedp.Navigate(s.APIURL+"/console/evidence"),
		chromedp.Click(chromedp.CSS(`a[href="/console/evidence/`+bundleID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS("svg#trajectories")))
	paths, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("svg#trajectories path.run")).map(p => p.dataset.condition + "=" + p.getAttribute("stroke"))`))
	if err != nil {
		t.Fatal(err)
	}
	colour := map[string]string{}
	for _, p := range paths {
		cond, stroke, _ := strings.Cut(p, "=")
		if c, seen := colour[cond]; seen && c != stroke {
			t.Fatalf("condition %s drawn in %s and %s", cond, c, stroke)
		}
		colour[cond] = stroke
	}
	if len(paths) < 2*len(colour) || len(colour) < 3 {
		t.Fatalf("%d run paths over %d conditions; want every replicate of every condition", len(paths), len(colour))
	}
	bars, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.metric rect.bar").length`))
	if err != nil || bars == 0 {
		t.Fatalf("metric panel has %d bars (%v)", bars, err)
	}
	consoleScreenshot(t, bctx, "console-evidence")
	consoleA11y(t, bctx)
	schema, err := chromedp.Run(bctx, chromedp.Evaluate[string](
		`fetch(document.getElementById("export-link").href).then(r => r.json()).then(j => j.schema + "/" + j.bundle.id)`,
		chromedp.EvalAwaitPromise))
	if err != nil || schema != "flylab.evidence-export/"+bundleID {
		t.Fatalf("export download gave %q (%v)", schema, err)
	}

	run("open the sessions page", chromedp.Navigate(s.APIURL+"/console/sessions"), chromedp.WaitVisible(chromedp.CSS("table.manifest")))
	consoleExpectText(t, bctx, "main", bundleID)
	consoleExpectText(t, bctx, "main", expID)
	consoleScreenshot(t, bctx, "console-sessions")
	consoleA11y(t, bctx)
	consoleWalkSessionPages(t, bctx, s)

	run("open the experiments page", chromedp.Navigate(s.APIURL+"/console/experiments"),
		chromedp.WaitVisible(chromedp.CSS(`form.filters input[name="project"]`)))
	consoleExpectText(t, bctx, "h1", "Research experiments")
	consoleA11y(t, bctx)
}

// consoleWalkSessionPages pages through the sessions one at a time with
// the Next page link and checks each session shows up once.
func consoleWalkSessionPages(t *testing.T, bctx context.Context, s *Stack) {
	t.Helper()
	count := func(path string) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(s.APIURL+path)); err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll("section.session")).map(s => s.dataset.session)`))
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		return ids
	}
	all := count("/console/sessions?size=200")
	if len(all) == 0 {
		t.Fatal("the sessions page lists no session after one saved evidence")
	}
	var walked []string
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.APIURL+"/console/sessions?size=1")); err != nil {
		t.Fatal(err)
	}
	for range len(all) + 1 {
		ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll("section.session")).map(s => s.dataset.session)`))
		if err != nil || len(ids) != 1 {
			t.Fatalf("a page of size 1 shows sessions %v (%v)", ids, err)
		}
		walked = append(walked, ids[0])
		more, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("next-page") !== null`))
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next-page")), chromedp.WaitVisible(chromedp.CSS("#first-page"))); err != nil {
			t.Fatalf("follow the next-page link: %v", err)
		}
	}
	if strings.Join(walked, ",") != strings.Join(all, ",") {
		t.Fatalf("the next-page links walked %v, want every session once: %v", walked, all)
	}
}

// consoleSignIn signs the browser in with the stack's operator token.
func consoleSignIn(t *testing.T, bctx context.Context, s *Stack) {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Navigate(s.APIURL+"/console/signin"),
		chromedp.SendKeys(chromedp.CSS("#token"), s.OperatorToken),
		chromedp.Click(chromedp.CSS("form.signin button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("nav")))
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
}

// consoleChromium finds Chromium: missing, the test fails under CI and is
// skipped elsewhere.
func consoleChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; scripts/install-test-tools installs it (apt-get install chromium)")
	}
	t.Skip("chromium is not installed (CI fails instead of skipping)")
	return ""
}

// consoleBrowser starts a headless Chromium with a fresh profile and
// returns a tab context; the browser stops when the test ends.
func consoleBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1600),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	return ctx
}

// consoleSubmit clicks a submit button and returns the HTTP status of the
// page the browser lands on.
func consoleSubmit(t *testing.T, bctx context.Context, button string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(button)))
	if err != nil {
		t.Fatalf("submit %s: %v", button, err)
	}
	return resp.Status
}

func consoleExpectText(t *testing.T, bctx context.Context, sel, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 10*time.Second)
	defer cancel()
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v", sel, err)
	}
	if !strings.Contains(got, want) {
		t.Fatalf("%s says %q; want it to contain %q", sel, got, want)
	}
}

// consoleScreenshot saves a full-page PNG screenshot to $GATEHOUSE_TEST_ARTIFACTS
// (or a gatehouse-test-artifacts folder in the temp dir) and logs the path.
func consoleScreenshot(t *testing.T, bctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("GATEHOUSE_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "gatehouse-test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("screenshot dir: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(bctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	t.Logf("screenshot saved: %s", path)
}

// consoleA11y checks the page the browser shows, with real data: headings
// start at h1 and skip no level, and every form field has a label.
func consoleA11y(t *testing.T, bctx context.Context) {
	t.Helper()
	problems, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`(() => {
		const p = []; let prev = 0;
		document.querySelectorAll("h1,h2,h3,h4,h5,h6").forEach(h => {
			const l = +h.tagName[1];
			if (prev === 0 && l !== 1) p.push("first heading is " + h.tagName);
			if (prev !== 0 && l > prev + 1) p.push(h.tagName + " " + h.textContent.trim() + " follows h" + prev);
			prev = l;
		});
		document.querySelectorAll("input:not([type=hidden]):not([type=submit]), select, textarea").forEach(f => {
			if (!(f.labels && f.labels.length) && !f.getAttribute("aria-label")) p.push("unlabelled field " + f.name);
		});
		return p;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := chromedp.Run(bctx, chromedp.Location())
	for _, p := range problems {
		t.Errorf("%s: %s", loc, p)
	}
}
