package rest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/internal/telemetry"
)

// RequestIDHeader carries the request id in and out.
const RequestIDHeader = "X-Request-Id"

// RequestID keeps a caller's request id (if sane) or mints one.
func RequestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(RequestIDHeader)
		if len(id) == 0 || len(id) > 64 {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		c.Set("request_id", id)
		c.Header(RequestIDHeader, id)
		c.Next()
	}
}

// Observe logs each request as one JSON line (at debug for the successes
// of a QuietAccessLog route) and records its metrics by route template
// (never the raw path, which would explode label cardinality).
func Observe(log *slog.Logger, m *telemetry.HTTPMetrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		status := strconv.Itoa(c.Writer.Status())
		elapsed := time.Since(start)
		m.Requests.WithLabelValues(c.Request.Method, route, status).Inc()
		m.Duration.WithLabelValues(c.Request.Method, route, status).Observe(elapsed.Seconds())
		level := slog.LevelInfo
		switch {
		case c.Writer.Status() >= 500:
			level = slog.LevelError
		case c.Writer.Status() < 400 && c.GetBool(quietAccessLogKey):
			level = slog.LevelDebug
		}
		log.LogAttrs(c.Request.Context(), level, "http request",
			slog.String("request_id", c.GetString("request_id")),
			slog.String("method", c.Request.Method),
			slog.String("route", route),
			slog.String("path", redactedPath(c)),
			slog.Int("status", c.Writer.Status()),
			slog.Float64("ms", float64(elapsed.Microseconds())/1000),
			slog.Int("bytes", c.Writer.Size()),
		)
	}
}

// LimitBody refuses bodies over max bytes with 413: at once when the
// declared length is too large, and while reading otherwise.
func LimitBody(max int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > max {
			Abort(c, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body exceeds %d bytes", max))
			return
		}
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, max)
		c.Next()
	}
}

// Recover turns a handler panic into a 500 JSON error and a log line; the
// process keeps serving.
func Recover(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					// A proxied stream was cut after its headers went out:
					// abort the connection so the client sees a truncated
					// response, not a clean end (net/http does, quietly).
					panic(r)
				}
				log.Error("handler panic", "request_id", c.GetString("request_id"), "panic", fmt.Sprint(r))
				Abort(c, http.StatusInternalServerError, "internal", "internal error; request id "+c.GetString("request_id"))
			}
		}()
		c.Next()
	}
}
