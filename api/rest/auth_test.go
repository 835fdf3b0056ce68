package rest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
)

// A credential store that cannot be reached is the server's fault, not the
// caller's: 503, Retry-After and a retryable typed error, never 401.
func TestRequire_StoreDownAnswersRetryable503(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	minted, err := platform.Mint(t.Context(), db, platform.MintRequest{Role: platform.RoleAgent, Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	engine := gin.New()
	engine.GET("/x", Require(db, platform.RoleAgent), func(c *gin.Context) { c.Status(http.StatusNoContent) })
	call := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/x", nil)
		req.Header.Set("Authorization", "Bearer "+minted.Plaintext)
		rec := httptest.NewRecorder()
		engine.ServeHTTP(rec, req)
		return rec
	}
	if r := call(); r.Code != http.StatusNoContent {
		t.Fatalf("a valid key with the store up: %d %s", r.Code, r.Body)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlDB.Close(); err != nil {
		t.Fatal(err)
	}
	r := call()
	if r.Code != http.StatusServiceUnavailable || r.Header().Get("Retry-After") != "1" {
		t.Fatalf("store down: %d Retry-After %q %s", r.Code, r.Header().Get("Retry-After"), r.Body)
	}
	var body struct {
		Error Error `json:"error"`
	}
	if err := json.Unmarshal(r.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if d, _ := body.Error.Details.(map[string]any); body.Error.Code != "unavailable" || d["retryable"] != true {
		t.Fatalf("store down must be a retryable unavailable error: %+v", body.Error)
	}
}
