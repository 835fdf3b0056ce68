package flywheel

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/gatehouse/gatehouse/api/rest"
)

// unavailable logs err and answers rest.Unavailable for an error the
// caller did not cause (the database unreachable, restarting or failing).
// The driver's message is logged, never sent.
func (h *Handler) unavailable(c *gin.Context, op string, err error, message string) {
	if DatabaseUnavailable(err) {
		h.log.Warn(op+": database unavailable", "err", err)
	} else {
		h.log.Error(op, "err", err)
	}
	rest.Unavailable(c, message)
}

// DatabaseUnavailable reports whether err means the database could not be
// reached or is shutting down or starting (as during a restart), rather
// than a query it refused.
func DatabaseUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		code := state.SQLState()
		// Class 08: connection exception; 57P01–57P03: admin/crash
		// shutdown, cannot connect now (starting up).
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "failed to connect")
}
