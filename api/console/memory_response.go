package console

import (
	"bytes"
	"net/http"
)

// memoryResponse is an http.ResponseWriter that keeps the answer in memory,
// for running a domain's operator handler in process.
type memoryResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header returns the response headers.
func (m *memoryResponse) Header() http.Header { return m.header }

// WriteHeader records the first status written.
func (m *memoryResponse) WriteHeader(status int) {
	if m.status == 0 {
		m.status = status
	}
}

// Write appends to the body (status 200 unless one was written).
func (m *memoryResponse) Write(b []byte) (int, error) {
	if m.status == 0 {
		m.status = http.StatusOK
	}
	return m.body.Write(b)
}
