package flywheel

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sqlStateError stands in for the driver's server error (pgconn.PgError).
type sqlStateError struct{ code string }

func (e sqlStateError) Error() string    { return "ERROR: something (SQLSTATE " + e.code + ")" }
func (e sqlStateError) SQLState() string { return e.code }

func TestDatabaseUnavailable_ClassifiesRestartAndConnectionErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"admin shutdown (server restarting)", sqlStateError{"57P01"}, true},
		{"cannot connect now (server starting)", fmt.Errorf("heartbeat: %w", sqlStateError{"57P03"}), true},
		{"connection failure class 08", sqlStateError{"08006"}, true},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"bad pooled connection", driver.ErrBadConn, true},
		{"connection cut mid-reply", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"unique violation", sqlStateError{"23505"}, false},
		{"plain error", errors.New("boom"), false},
		{"nil", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DatabaseUnavailable(tc.err); got != tc.want {
				t.Fatalf("DatabaseUnavailable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestHeartbeat_DatabaseDownAnswersRetryable503 closes the database under
// a leased rollout: its heartbeat answers a typed, retryable 503 with
// Retry-After and no driver text, never a 500.
func TestHeartbeat_DatabaseDownAnswersRetryable503(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	g := e.lease(time.Hour)
	sqlDB, err := e.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlDB.Close(); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/flywheel/rollouts/"+g.Rollout.ID+"/heartbeat", nil)
	req.Header.Set("Authorization", "Bearer "+g.APIKey)
	req.Header.Set(LeaseTokenHeader, g.LeaseToken)
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, req)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("heartbeat with the database down: %d Retry-After %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if body.Error.Code != "unavailable" || body.Error.Details["retryable"] != true {
		t.Fatalf("error %+v", body.Error)
	}
	if strings.Contains(w.Body.String(), "sql") || strings.Contains(w.Body.String(), "closed") {
		t.Fatalf("the driver's message leaked: %s", w.Body)
	}
}
