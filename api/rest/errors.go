package rest

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
)

// Error is the JSON error body of every REST endpoint:
// {"error": {"code": "...", "message": "...", "details": ...}}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// Abort answers status with an error body and stops the handler chain.
func Abort(c *gin.Context, status int, code, message string, details ...any) {
	e := Error{Code: code, Message: message}
	if len(details) == 1 {
		e.Details = details[0]
	} else if len(details) > 1 {
		e.Details = details
	}
	c.AbortWithStatusJSON(status, gin.H{"error": e})
}

// RetryAfterSeconds is the Retry-After of every 503: a database restart or
// failover is over in seconds, and a flywheel heartbeat paced at a third of
// its lease stays well inside the lease after one retry.
const RetryAfterSeconds = 1

// Unavailable answers 503 "unavailable": a dependency (database, blob
// store, Temporal) did not answer, so the call changed nothing, or only
// what its key makes safe to send again, and the caller may retry after
// Retry-After. The details say retryable: true, next to any extra ones.
func Unavailable(c *gin.Context, message string, extra ...gin.H) {
	UnavailableAs(c, "unavailable", message, extra...)
}

// UnavailableAs is Unavailable under a more specific code (for example
// temporal_unavailable): 503, Retry-After and details.retryable.
func UnavailableAs(c *gin.Context, code, message string, extra ...gin.H) {
	details := gin.H{"retryable": true}
	for _, e := range extra {
		for k, v := range e {
			details[k] = v
		}
	}
	c.Header("Retry-After", strconv.Itoa(RetryAfterSeconds))
	Abort(c, http.StatusServiceUnavailable, code, message, details)
}
