package rest

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

func TestCheckDepth(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
		ok   bool
	}{
		{"flat", `{"a":1}`, true},
		{"at limit", strings.Repeat("[", 64) + strings.Repeat("]", 64), true},
		{"over limit", strings.Repeat("[", 65) + strings.Repeat("]", 65), false},
		{"brackets in strings do not count", `{"s":"` + strings.Repeat("[", 500) + `"}`, true},
		{"escaped quote keeps string open", `{"s":"\"` + strings.Repeat("{", 500) + `"}`, true},
		{"deep objects", strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100), false},
	}
	for _, tc := range cases {
		err := checkDepth([]byte(tc.body), 64)
		if (err == nil) != tc.ok {
			t.Errorf("%s: ok=%v err=%v", tc.name, tc.ok, err)
		}
		if err != nil && !errors.Is(err, errTooDeep) {
			t.Errorf("%s: unexpected error %v", tc.name, err)
		}
	}
}

func TestGuardJSON_RefusesDeepBodiesAndPassesOthersIntact(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.TestMode)
	e := gin.New()
	var seen string
	e.Use(LimitBody(1<<20), GuardJSON())
	e.POST("/x", func(c *gin.Context) {
		b, _ := io.ReadAll(c.Request.Body)
		seen = string(b)
		c.Status(http.StatusNoContent)
	})
	send := func(body string) int {
		req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := send(strings.Repeat("[", 10000)); code != http.StatusBadRequest {
		t.Fatalf("deep body: want 400, got %d", code)
	}
	if seen != "" {
		t.Fatal("the handler must not run for a refused body")
	}
	if code := send(`{"ok":true}`); code != http.StatusNoContent || seen != `{"ok":true}` {
		t.Fatalf("normal body: %d %q", code, seen)
	}
}
