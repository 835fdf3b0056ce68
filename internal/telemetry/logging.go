// Package telemetry sets up logs, metrics and traces for one process:
// structured JSON logs with secrets redacted, a Prometheus registry with the
// HTTP and Temporal SDK metrics, and OpenTelemetry tracing over OTLP when
// OTEL_EXPORTER_OTLP_ENDPOINT is set.
package telemetry

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// secretPattern matches credential plaintexts wherever they appear in a
// logged string: agent keys, operator tokens, capabilities, lease and
// gateway tokens all carry one of these prefixes.
var secretPattern = regexp.MustCompile(`\b(mk|op|cap|lt|gw|rk)_[A-Za-z0-9_-]{8,}`)

// secretKeys are attribute names whose values are never logged.
var secretKeys = map[string]bool{
	"authorization": true, "api_key": true, "token": true, "password": true,
	"lease_token": true, "reviewer_capability": true, "capability": true,
	"flywheel-lease-token": true, "cookie": true, "set-cookie": true,
}

// Redact replaces credential plaintexts in s with a marker. Most logged
// strings (paths, methods, ids) hold no credential prefix at all, and
// skip the regular expression (mayHoldSecret).
func Redact(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	return secretPattern.ReplaceAllStringFunc(s, func(m string) string {
		return m[:strings.IndexByte(m, '_')+1] + "[REDACTED]"
	})
}

// NewLogger returns a JSON logger at level that redacts secrets.
func NewLogger(w io.Writer, level string) *slog.Logger {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lv = slog.LevelDebug
	case "warn":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		lv = slog.LevelInfo
	}
	return slog.New(traceHandler{slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: lv,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if secretKeys[strings.ToLower(a.Key)] {
				return slog.String(a.Key, "[REDACTED]")
			}
			if a.Value.Kind() == slog.KindString {
				return slog.String(a.Key, Redact(a.Value.String()))
			}
			return a
		},
	})})
}

// traceHandler adds trace_id and span_id to a record logged with a
// context that carries a span (log.InfoContext(ctx, …)), so a log line
// leads to its trace.
type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(attrs)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}
