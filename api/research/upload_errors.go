package research

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
)

// abortUpload answers an upload whose target did not take it: a tool
// error under its own status (409 for gate_blocked and conflict, a
// retryable 503 for unavailable); anything else is a retryable 503 saying
// fallback.
func abortUpload(c *gin.Context, err error, fallback string) {
	var te *ToolError
	if !errors.As(err, &te) {
		rest.Unavailable(c, fallback)
		return
	}
	if te.Code == CodeUnavailable {
		rest.Unavailable(c, te.Message)
		return
	}
	status := statusOf[te.Code]
	if status == 0 {
		status = http.StatusConflict
	}
	rest.Abort(c, status, te.Code, te.Message)
}
