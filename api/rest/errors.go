package rest

import (
	"github.com/gin-gonic/gin"
)

// Error is the JSON error body of every REST endpoint:
// {"error": {"code": "...", "message": "...", "details": ...}}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// Abort answers status with an error body and stops the handler chain.
func Abort(c *gin.Context, status int, code, message string, details ...any) {
	e := Error{Code: code, Message: message}
	if len(details) == 1 {
		e.Details = details[0]
	} else if len(details) > 1 {
		e.Details = details
	}
	c.AbortWithStatusJSON(status, gin.H{"error": e})
}
