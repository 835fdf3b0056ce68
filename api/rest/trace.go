package rest

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// Trace starts a server span for every request, continuing the caller's
// traceparent, so an agent's trace runs on through the api into Temporal
// (the SDK's tracing interceptor) and the database. The span is named by
// the route template ("POST /v1/flylab/tools/:name"), never the raw path,
// which may hold tokens. With tracing off the global provider is a no-op.
func Trace() gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx := otel.GetTextMapPropagator().Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
		ctx, span := otel.Tracer("github.com/gatehouse/gatehouse/api").Start(ctx, c.Request.Method,
			trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(c.Request.Method), semconv.URLScheme(scheme(c.Request))))
		defer span.End()
		c.Request = c.Request.WithContext(ctx)
		c.Next()
		route := c.FullPath()
		if route != "" {
			span.SetName(c.Request.Method + " " + route)
			span.SetAttributes(semconv.HTTPRoute(route))
		}
		status := c.Writer.Status()
		span.SetAttributes(semconv.HTTPResponseStatusCode(status), attribute.String("gatehouse.request_id", c.GetString("request_id")))
		if status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
	}
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
