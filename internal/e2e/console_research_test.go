package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsole_BrowserAnswersAHumanReview brings a research experiment to
// its design review, requests a human review, and answers it in the
// console's Reviews page; the experiment's workflow then shows the verdict.
func TestConsole_BrowserAnswersAHumanReview(t *testing.T) {
	chromium := consoleChromium(t)
	s := Shared(t)
	pid, expID, rr := consoleHumanReviewRequest(t, s)

	bctx := consoleBrowser(t, chromium)
	consoleSignIn(t, bctx, s)
	section := "#review-" + rr
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.APIURL+"/console/reviews"), chromedp.WaitVisible(chromedp.CSS(section))); err != nil {
		t.Fatalf("reviews page: %v", err)
	}
	consoleExpectText(t, bctx, section, "plan.md")
	consoleScreenshot(t, bctx, "console-reviews")
	consoleA11y(t, bctx)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#verdict-"+rr+"-needs_changes")),
		chromedp.SendKeys(chromedp.CSS("#synopsis-"+rr), "tighten the method"),
	); err != nil {
		t.Fatal(err)
	}
	if code := consoleSubmit(t, bctx, section+" form.verdict button[type=submit]"); code != http.StatusOK {
		t.Fatalf("verdict answered %d after its redirect, want 200", code)
	}
	consoleExpectText(t, bctx, "#notice", "Verdict submitted for review request "+rr)

	w := consoleResearchTool(t, s, "workflow.status_and_next", map[string]any{"project_id": pid, "experiment_id": expID})
	wf, _ := w["workflow"].(map[string]any)
	rc, _ := wf["revision_context"].(map[string]any)
	if wf["status"] != "planned" || rc["synopsis"] != "tighten the method" {
		t.Fatalf("after the console verdict the workflow is %v", wf)
	}
}

// consoleResearchTool calls a research tool over REST as the operator.
func consoleResearchTool(t *testing.T, s *Stack, name string, args map[string]any) map[string]any {
	t.Helper()
	r := s.Do(t, http.MethodPost, "/v1/research/tools/"+name, s.OperatorToken, args)
	if r.Status != http.StatusOK {
		t.Fatalf("%s: HTTP %d %s", name, r.Status, truncate(r.Body))
	}
	var out map[string]any
	r.JSON(t, &out)
	return out
}

// consoleHumanReviewRequest creates a project and an experiment at its
// design review with an uploaded plan, and requests a human review.
func consoleHumanReviewRequest(t *testing.T, s *Stack) (projectID, expID, requestID string) {
	t.Helper()
	p, _ := consoleResearchTool(t, s, "project", map[string]any{"action": "create",
		"name": fmt.Sprintf("console-%x", time.Now().UnixNano())})["project"].(map[string]any)
	projectID, _ = p["id"].(string)
	expID, _ = consoleResearchTool(t, s, "experiment.create", map[string]any{"project_id": projectID, "name": "console-review"})["experiment_id"].(string)
	sub := consoleResearchTool(t, s, "artifact.submit", map[string]any{"project_id": projectID, "target_type": "experiment",
		"target_id": expID, "role": "plan", "path": "plan.md"})
	up, _ := sub["upload"].(map[string]any)
	method, _ := up["method"].(string)
	target, _ := up["url"].(string)
	req, err := http.NewRequest(method, target, bytes.NewReader([]byte("# Plan\n## Hypothesis\nh\n## Method\nm\n## Success criteria\ns\n## Risks\nr\n")))
	if err != nil {
		t.Fatalf("upload instructions %v: %v", up, err)
	}
	headers, _ := up["headers"].(map[string]any)
	for k, v := range headers {
		req.Header.Set(k, fmt.Sprint(v))
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("plan upload: %d %s", resp.StatusCode, body)
	}
	consoleResearchTool(t, s, "experiment.transition", map[string]any{"project_id": projectID, "experiment_id": expID, "transition": "submit_design"})
	requestID, _ = consoleResearchTool(t, s, "review.request", map[string]any{"project_id": projectID, "target_type": "experiment",
		"target_id": expID, "role": "human"})["review_request_id"].(string)
	if projectID == "" || expID == "" || requestID == "" {
		t.Fatalf("research setup gave project %q experiment %q review request %q", projectID, expID, requestID)
	}
	return projectID, expID, requestID
}
