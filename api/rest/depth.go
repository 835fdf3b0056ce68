package rest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/gin-gonic/gin"
)

// MaxJSONDepth bounds how deeply a JSON body may nest objects and arrays.
// Every contract's bodies nest a handful of levels; a thousand-level body is
// an attack on the decoder, refused before any handler parses it.
const MaxJSONDepth = 64

// errTooDeep reports a body nested beyond MaxJSONDepth.
var errTooDeep = errors.New("JSON nested too deeply")

// GuardJSON reads a JSON request body (already size-limited by LimitBody),
// refuses one nested deeper than MaxJSONDepth with 400, and hands the bytes
// on to the handler unchanged.
func GuardJSON() gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Body == nil || c.Request.ContentLength == 0 || !isJSON(c.Request.Header.Get("Content-Type")) {
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
		if err := checkDepth(body, MaxJSONDepth); err != nil {
			Abort(c, http.StatusBadRequest, "too_deep", fmt.Sprintf("JSON body nests deeper than %d levels", MaxJSONDepth))
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
		c.Request.ContentLength = int64(len(body))
		c.Next()
	}
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || (len(mt) > 5 && mt[len(mt)-5:] == "+json")
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
