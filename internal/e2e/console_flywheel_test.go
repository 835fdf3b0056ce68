package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsole_BrowserCancelsARollout enqueues a rollout over the operator
// API, finds it on the console's Rollouts page, cancels it there, and sees
// the flywheel report it excluded as cancelled.
func TestConsole_BrowserCancelsARollout(t *testing.T) {
	chromium := consoleChromium(t)
	s := Shared(t)
	r := s.Do(t, http.MethodPost, "/operator/v1/rollouts", s.OperatorToken, map[string]any{"rollouts": []any{map[string]any{"turn_input": "console e2e"}}})
	if r.Status != http.StatusCreated {
		t.Fatalf("enqueue: %d %s", r.Status, truncate(r.Body))
	}
	var enq struct {
		IDs []string `json:"rollout_ids"`
	}
	r.JSON(t, &enq)
	if len(enq.IDs) != 1 {
		t.Fatalf("enqueue gave %v", enq.IDs)
	}
	id := enq.IDs[0]

	bctx := consoleBrowser(t, chromium)
	consoleSignIn(t, bctx, s)
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(s.APIURL+"/console/rollouts"),
		chromedp.Click(chromedp.CSS(`a[href="/console/rollouts/`+id+`"]`)),
		chromedp.WaitVisible(chromedp.CSS("form.cancel"))); err != nil {
		t.Fatalf("rollout page: %v", err)
	}
	consoleScreenshot(t, bctx, "console-rollout")
	consoleA11y(t, bctx)
	if code := consoleSubmit(t, bctx, "form.cancel button[type=submit]"); code != http.StatusOK {
		t.Fatalf("cancel answered %d after its redirect, want 200", code)
	}
	consoleExpectText(t, bctx, "#notice", "Cancelled rollout "+id)

	deadline := time.Now().Add(20 * time.Second)
	for {
		var v struct {
			Status    string `json:"status"`
			Exclusion *struct {
				Reason string `json:"reason"`
			} `json:"exclusion"`
		}
		s.Do(t, http.MethodGet, "/operator/v1/rollouts/"+id, s.OperatorToken, nil).JSON(t, &v)
		if v.Status == "excluded" && v.Exclusion != nil && v.Exclusion.Reason == "cancelled" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rollout %s after the console cancel: %+v", id, v)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
