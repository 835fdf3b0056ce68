package rest

import "github.com/gin-gonic/gin"

// quietAccessLogKey marks a request whose success Observe logs at debug.
const quietAccessLogKey = "gatehouse.quiet_access_log"

// QuietAccessLog marks a route whose successful requests are too frequent
// to log each one at info (a lease heartbeat every few seconds from every
// running agent: one JSON line and one write to stdout per call is a
// sizeable share of its cost). Its failures (status 400 and above) are
// logged as any other's, and the request metrics count every call.
func QuietAccessLog(c *gin.Context) {
	QuietenAccessLog(c)
	c.Next()
}

// QuietenAccessLog marks this one request as QuietAccessLog marks every
// request of a route, for a handler whose answer is routine only some of
// the time: a claim that leased nothing is an idle agent's poll, one
// that leased rollouts is worth a line.
func QuietenAccessLog(c *gin.Context) {
	c.Set(quietAccessLogKey, true)
}
