package rest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
)

func TestUnavailable_IsRetryableWithRetryAfterAndKeepsExtraDetails(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(rec)
	Unavailable(c, "could not store rollouts; retry", gin.H{"rollout_ids": []string{"r1"}})
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("status %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	ids, _ := body.Error.Details["rollout_ids"].([]any)
	if body.Error.Code != "unavailable" || body.Error.Details["retryable"] != true || len(ids) != 1 {
		t.Fatalf("body %s", rec.Body)
	}
}
