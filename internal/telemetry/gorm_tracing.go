package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"
)

// GORMTracing is a GORM plugin giving every statement a client span in the
// trace of its context (db.WithContext(ctx)): named by operation and
// table, with the SQL text (placeholders, never the bound values) and the
// rows affected. It uses the global tracer provider, a no-op until
// tracing is on.
func GORMTracing() gorm.Plugin { return gormTracing{} }

type gormTracing struct{}

// Name names the plugin for gorm.DB.Use.
func (gormTracing) Name() string { return "gatehouse:tracing" }

// Initialize wraps each of GORM's statement kinds in a span.
func (gormTracing) Initialize(db *gorm.DB) error {
	cb := db.Callback()
	return errors.Join(
		cb.Create().Before("gorm:create").Register("tracing:before_create", startSpan("INSERT")),
		cb.Create().After("gorm:create").Register("tracing:after_create", endSpan),
		cb.Query().Before("gorm:query").Register("tracing:before_query", startSpan("SELECT")),
		cb.Query().After("gorm:query").Register("tracing:after_query", endSpan),
		cb.Update().Before("gorm:update").Register("tracing:before_update", startSpan("UPDATE")),
		cb.Update().After("gorm:update").Register("tracing:after_update", endSpan),
		cb.Delete().Before("gorm:delete").Register("tracing:before_delete", startSpan("DELETE")),
		cb.Delete().After("gorm:delete").Register("tracing:after_delete", endSpan),
		cb.Row().Before("gorm:row").Register("tracing:before_row", startSpan("ROW")),
		cb.Row().After("gorm:row").Register("tracing:after_row", endSpan),
		cb.Raw().Before("gorm:raw").Register("tracing:before_raw", startSpan("RAW")),
		cb.Raw().After("gorm:raw").Register("tracing:after_raw", endSpan),
	)
}

const gormSpanKey = "gatehouse:tracing:span"

func startSpan(op string) func(*gorm.DB) {
	return func(db *gorm.DB) {
		ctx := db.Statement.Context
		if ctx == nil || !trace.SpanContextFromContext(ctx).IsValid() {
			// A statement outside any trace (a startup query, a sweep with
			// no caller) would start a trace of its own per row: skip it.
			return
		}
		name := op
		if db.Statement.Table != "" {
			name += " " + db.Statement.Table
		}
		_, span := otel.Tracer("github.com/gatehouse/gatehouse/models").Start(ctx, name,
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(semconv.DBSystemKey.String(db.Name()), semconv.DBCollectionName(db.Statement.Table)))
		db.InstanceSet(gormSpanKey, span)
	}
}

func endSpan(db *gorm.DB) {
	v, ok := db.InstanceGet(gormSpanKey)
	if !ok {
		return
	}
	span := v.(trace.Span)
	defer span.End()
	span.SetAttributes(semconv.DBQueryText(db.Statement.SQL.String()), attribute.Int64("db.rows_affected", db.RowsAffected))
	if err := db.Error; err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}
