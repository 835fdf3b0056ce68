package e2e

import (
	"net/http"
	"testing"
	"time"
)

// retryBudget bounds how long a client retries an answer marked retryable.
const retryBudget = 90 * time.Second

// flyCallRetrying calls a FlyLab tool over REST as a careful agent does:
// a retryable failure (a 5xx from the front or the api, or an envelope
// with retryable:true) is retried with the same arguments; any other
// failure fails the test. It returns the envelope and how many retries it took.
func flyCallRetrying(t *testing.T, s *Stack, c flyContract, token, tool string, args any) (map[string]any, int) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	deadline := time.Now().Add(retryBudget)
	for retries := 0; ; retries++ {
		r, err := postWith(s.APIURL+"/v1/flylab/tools/"+tool, token, args, 60*time.Second)
		var env map[string]any
		switch {
		case err != nil:
			t.Logf("%s: transport error (retrying): %v", tool, err)
		case r.Status >= 500:
			t.Logf("%s: HTTP %d (retrying): %s", tool, r.Status, truncate(r.Body))
		case r.Status != http.StatusOK:
			t.Fatalf("%s: HTTP %d %s", tool, r.Status, truncate(r.Body))
		default:
			r.JSON(t, &env)
			c.checkEnvelope(t, tool, env)
			e, _ := env["error"].(map[string]any)
			if env["ok"] == true || e["retryable"] != true {
				if env["ok"] != true {
					t.Fatalf("%s failed without retryable: %v", tool, e)
				}
				return env, retries
			}
			t.Logf("%s: retryable %v (retrying)", tool, e["code"])
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still failing after %s of retries", tool, retryBudget)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// mustRetrying runs a research tool that must succeed, retrying an error
// the server marks retryable (code unavailable, or retryable:true); any
// other error fails the test. It returns the result and the retries taken.
func (a *researchAgent) mustRetrying(name string, args map[string]any) (map[string]any, int) {
	a.t.Helper()
	deadline := time.Now().Add(retryBudget)
	for retries := 0; ; retries++ {
		r := a.call(name, args)
		if !r.IsError {
			return r.Body, retries
		}
		if r.Code() != "unavailable" && dig(r.Body, "error", "retryable") != true {
			a.t.Fatalf("%s(%v) failed without retryable: %s", name, args, r.Raw)
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("%s still failing after %s of retries: %s", name, retryBudget, r.Raw)
		}
		a.t.Logf("%s: retryable %s (retrying)", name, r.Code())
		time.Sleep(500 * time.Millisecond)
	}
}
