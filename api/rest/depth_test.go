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

// guardEngine is a LimitBody+GuardJSON engine with a JSON route (/x) that
// records the bytes it saw and a raw upload route that copies its body.
func guardEngine(seen *string, called *bool) *gin.Engine {
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.Use(LimitBody(1<<20), GuardJSON())
	record := func(c *gin.Context) {
		b, _ := io.ReadAll(c.Request.Body)
		*seen, *called = string(b), true
		c.Status(http.StatusNoContent)
	}
	e.POST("/x", record)
	e.PUT("/api/storage/u/:token", record)
	e.PUT("/api/artifacts/u/:token", record)
	return e
}

func TestGuardJSON_RefusesDeepBodiesWhateverTheContentType(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	for _, tc := range []struct {
		name        string
		contentType string // "" sends no Content-Type header
		chunked     bool
	}{
		{"text/plain", "text/plain", false},
		{"no content type", "", false},
		{"octet-stream", "application/octet-stream", false},
		{"form", "application/x-www-form-urlencoded", false},
		{"malformed content type", "this is ; not a media type", false},
		{"chunked, no content type", "", true},
		{"json", "application/json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen string
			var called bool
			e := guardEngine(&seen, &called)
			send := func(body string) *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
				if tc.chunked {
					req.ContentLength = -1
				}
				if tc.contentType == "" {
					req.Header.Del("Content-Type")
				} else {
					req.Header.Set("Content-Type", tc.contentType)
				}
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				return rec
			}
			rec := send(deep)
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"too_deep"`) {
				t.Fatalf("deep body: want 400 too_deep, got %d %s", rec.Code, rec.Body.String())
			}
			if called {
				t.Fatal("the handler must not run for a refused body")
			}
			if rec := send(`{"ok":[1,2,{"n":3}]}`); rec.Code != http.StatusNoContent || seen != `{"ok":[1,2,{"n":3}]}` {
				t.Fatalf("shallow body: %d %q", rec.Code, seen)
			}
		})
	}
}

func TestGuardJSON_LeavesRawUploadRoutesAlone(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 5000) // raw bytes, not JSON: must be stored as sent
	for _, path := range []string{"/api/storage/u/tok", "/api/artifacts/u/tok"} {
		for _, ct := range []string{"", "application/octet-stream", "text/plain", "application/json"} {
			var seen string
			var called bool
			e := guardEngine(&seen, &called)
			req := httptest.NewRequest(http.MethodPut, path, strings.NewReader(deep))
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != http.StatusNoContent || !called || seen != deep {
				t.Fatalf("%s (%q): want 204 with the bytes intact, got %d (called=%v, %d bytes)", path, ct, rec.Code, called, len(seen))
			}
		}
	}
	if RawBodyRoute(http.MethodPost, "/api/storage/u/:token") || RawBodyRoute(http.MethodPut, "/x") {
		t.Fatal("only the PUT upload routes take raw bytes")
	}
}

func TestGuardJSON_TooLargeBodyStillAnswers413(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.Use(LimitBody(16), GuardJSON())
	e.POST("/x", func(c *gin.Context) { c.Status(http.StatusNoContent) })
	req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(strings.Repeat("a", 100)))
	req.ContentLength = -1 // unknown length: only the read can tell
	req.Header.Set("Content-Type", "text/plain")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("want 413, got %d %s", rec.Code, rec.Body.String())
	}
}

func TestReadBody_RefusesDeepBodiesWithoutGuardJSON(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.TestMode)
	e := gin.New() // no GuardJSON: ReadBody alone must refuse
	var got []byte
	var called bool
	e.POST("/x", func(c *gin.Context) {
		body, ok := ReadBody(c)
		if !ok {
			return
		}
		got, called = body, true
		c.Status(http.StatusNoContent)
	})
	send := func(body, ct string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	for _, ct := range []string{"", "text/plain", "application/json"} {
		rec := send(strings.Repeat("[", 65)+strings.Repeat("]", 65), ct)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"too_deep"`) || called {
			t.Fatalf("%q: want 400 too_deep before the handler, got %d %s", ct, rec.Code, rec.Body.String())
		}
	}
	if rec := send(`[[1]]`, "text/plain"); rec.Code != http.StatusNoContent || string(got) != `[[1]]` {
		t.Fatalf("shallow body: %d %q", rec.Code, got)
	}
}
