package rest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"
)

// MaxJSONDepth bounds how deeply a JSON body may nest objects and arrays.
// Every contract's bodies nest a handful of levels; a thousand-level body is
// an attack on the decoder, refused before any handler parses it.
const MaxJSONDepth = 64

// errTooDeep reports a body nested beyond MaxJSONDepth.
var errTooDeep = errors.New("JSON nested too deeply")

// rawBodyRoutes are the routes (method and Gin route pattern) whose bodies
// are opaque bytes streamed to the blob store and never decoded as JSON:
// the single-use artifact upload and the storage object upload. Every other
// body is decoded as JSON by its handler (ReadBody plus json.Unmarshal,
// ShouldBindJSON, the MCP and gateway endpoints) whatever its Content-Type,
// so GuardJSON checks all of them. The research package owns these paths
// (UploadPathPrefix, StorageUploadPrefix); a test keeps the two in step.
var rawBodyRoutes = map[string]bool{
	http.MethodPut + " /api/artifacts/u/:token": true,
	http.MethodPut + " /api/storage/u/:token":   true,
}

// RawBodyRoute reports whether the route with this method and Gin route
// pattern takes raw bytes, so GuardJSON leaves its body alone.
func RawBodyRoute(method, pattern string) bool {
	return rawBodyRoutes[method+" "+pattern]
}

// GuardJSON reads every non-empty request body (already size-limited by
// LimitBody), whatever its Content-Type (handlers decode bodies as JSON
// without looking at it), refuses one nested deeper than MaxJSONDepth with
// 400, and hands the bytes on to the handler unchanged. Raw upload routes
// (RawBodyRoute) are passed through unread so their bytes keep streaming.
func GuardJSON() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Body == nil || c.Request.Body == http.NoBody || c.Request.ContentLength == 0 ||
			RawBodyRoute(c.Request.Method, c.FullPath()) {
			c.Next()
			return
		}
		body, err := io.ReadAll(c.Request.Body)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			Abort(c, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit))
			return
		case err != nil:
			Abort(c, http.StatusBadRequest, "bad_body", "could not read request body")
			return
		}
		if !depthOK(c, body) {
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
		c.Request.ContentLength = int64(len(body))
		c.Next()
	}
}

// depthOK answers 400 too_deep and returns false when body nests deeper
// than MaxJSONDepth.
func depthOK(c *gin.Context, body []byte) bool {
	if err := checkDepth(body, MaxJSONDepth); err != nil {
		Abort(c, http.StatusBadRequest, "too_deep", fmt.Sprintf("JSON body nests deeper than %d levels", MaxJSONDepth))
		return false
	}
	return true
}

// checkDepth scans raw JSON for nesting depth without decoding it; strings
// (with escapes) are skipped so brackets inside them do not count. Malformed
// JSON is left for the handler's own decoder to report.
func checkDepth(b []byte, max int) error {
	depth := 0
	inString, escaped := false, false
	for _, ch := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
			continue
		}
		switch ch {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				return errTooDeep
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}
