// Package duplex serves HTTP handlers that proxy: they may answer while the
// request body is still arriving.
package duplex

import "net/http"

// Handler lets h answer while the request body is still arriving, as a
// reverse proxy must. Without it net/http's server, once the answer
// starts, consumes and closes whatever of the body the upstream transport
// has not yet read; the transport then fails its next read of the body
// ("invalid Read on closed Body") and aborts the upstream connection, so
// an answer that streams (server-sent events, an LLM completion) is cut
// short.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		h.ServeHTTP(w, r)
	})
}
