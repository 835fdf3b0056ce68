package flylab

import "fmt"

// Error codes shared with the FlyLab tool contract (flylab.tool-result.v3).
// The tool layer copies Code, Message, Retryable and Details into the
// failure envelope unchanged.
const (
	CodeInvalidInput          = "INVALID_INPUT"
	CodeNotFound              = "NOT_FOUND"
	CodeEvidenceMismatch      = "EVIDENCE_MISMATCH"
	CodeUnsupportedTarget     = "UNSUPPORTED_TARGET"
	CodeInvalidTiming         = "INVALID_TIMING"
	CodeStaleState            = "STALE_STATE"
	CodeApprovalRequired      = "APPROVAL_REQUIRED"
	CodeRunLimitExceeded      = "RUN_LIMIT_EXCEEDED"
	CodeSimulationUnavailable = "SIMULATION_UNAVAILABLE"
	CodeIncompleteBatch       = "INCOMPLETE_BATCH"
	CodeMetricUnavailable     = "METRIC_UNAVAILABLE"
	CodeIncomparableAnalyses  = "INCOMPARABLE_ANALYSES"
	CodeIncompleteProvenance  = "INCOMPLETE_PROVENANCE"
)

// Error is the typed error every exported function returns for a problem the
// caller can fix. Inspect it with errors.As.
type Error struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// newError builds a non-retryable *Error. details is a flat list of
// key, value pairs so call sites stay on one line.
func newError(code, message string, details ...any) *Error {
	e := &Error{Code: code, Message: message}
	if len(details) > 0 {
		e.Details = make(map[string]any, len(details)/2)
		for i := 0; i+1 < len(details); i += 2 {
			e.Details[fmt.Sprint(details[i])] = details[i+1]
		}
	}
	return e
}

func invalidInput(field, message string, details ...any) *Error {
	return newError(CodeInvalidInput, message, append([]any{"field", field}, details...)...)
}
