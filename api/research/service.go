package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/internal/blobstore"
	"github.com/gatehouse/gatehouse/internal/config"
	"github.com/gatehouse/gatehouse/internal/temporalerr"
	"github.com/gatehouse/gatehouse/models/platform"
	models "github.com/gatehouse/gatehouse/models/research"
)

// Service is what tool handlers use.
type Service struct {
	DB       *gorm.DB
	Temporal client.Client
	Blobs    blobstore.Store
	Config   config.Config
	Log      *slog.Logger
	Cat      *Catalogue
	// Now is the clock for expiries (nil: the wall clock); tests move it.
	Now func() time.Time

	tldrs tldrCache
}

// now returns the service's current time in UTC.
func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Call is one tool invocation.
type Call struct {
	Tool      *Tool
	Principal platform.Principal
	Args      json.RawMessage
}

// decode unmarshals the (schema-checked) arguments into v.
func (c *Call) decode(v any) error {
	if len(c.Args) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.Args, v); err != nil {
		return invalid("", "arguments do not decode: "+err.Error())
	}
	return nil
}

// ToolError is a tool error result with a stable machine code.
type ToolError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Pointer string         `json:"pointer,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

func toolErr(code, pointer, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Pointer: pointer, Message: fmt.Sprintf(format, args...)}
}

func invalid(pointer, msg string) *ToolError {
	return &ToolError{Code: CodeInvalidInput, Pointer: pointer, Message: msg}
}

// asToolError turns any handler error into a ToolError; unknown errors are
// logged and answered as unavailable without internals.
func (s *Service) asToolError(ctx context.Context, tool string, err error) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	var me *models.Error
	if errors.As(err, &me) {
		return &ToolError{Code: me.Code, Message: me.Message, Pointer: me.Field, Details: me.Details}
	}
	retry := map[string]any{"retryable": true}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return &ToolError{Code: CodeUnavailable, Message: "the call timed out; retry", Details: retry}
	}
	if temporalerr.Transient(err) {
		return &ToolError{Code: CodeUnavailable, Message: "Temporal is unreachable; retry", Details: retry}
	}
	s.Log.ErrorContext(ctx, "research tool failed", "tool", tool, "err", err)
	return &ToolError{Code: CodeUnavailable, Message: "a backing service failed; retry", Details: retry}
}

// Invoke validates arguments against the tool's schema, enforces
// visibility and runs the handler.
func (s *Service) Invoke(ctx context.Context, p platform.Principal, name string, args json.RawMessage) (any, *ToolError) {
	t, ok := s.Cat.Lookup(name)
	if !ok {
		return nil, toolErr(CodeNotFound, "", "no tool %q in this deployment", name)
	}
	if t.Hidden && p.Role != platform.RoleOperator {
		return nil, &ToolError{Code: CodeForbidden, Reason: ReasonToolVisibility,
			Message: t.Name + " is an internal tool; external keys may not call it"}
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	vs, err := t.schema.ValidateJSON(args)
	if err != nil {
		return nil, invalid("", "arguments are not JSON")
	}
	if len(vs) > 0 {
		te := invalid(vs[0].Path, vs[0].Message)
		te.Details = map[string]any{"violations": vs}
		return nil, te
	}
	out, herr := t.Handler(ctx, s, &Call{Tool: t, Principal: p, Args: args})
	if herr != nil {
		return nil, s.asToolError(ctx, t.Name, herr)
	}
	return out, nil
}
