package rest

import (
	"errors"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"
)

// ReadBody reads the whole (already size-limited) body of a request its
// handler decodes as JSON, answering 413 when it was too large and 400
// too_deep when it nests deeper than MaxJSONDepth (whatever its
// Content-Type, and whether or not GuardJSON ran). It returns false when it
// has answered.
func ReadBody(c *gin.Context) ([]byte, bool) {
	body, err := io.ReadAll(c.Request.Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		Abort(c, http.StatusRequestEntityTooLarge, "body_too_large", "request body too large")
		return nil, false
	}
	if err != nil {
		Abort(c, http.StatusBadRequest, "bad_body", "could not read request body")
		return nil, false
	}
	if !depthOK(c, body) {
		return nil, false
	}
	return body, true
}
