package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/inspect"
)

// InspectPath is the agent's one HTTP route: POST a SandboxInspectRequest.
const InspectPath = "/v1/inspect"

// maxRequest bounds an inspection request body.
const maxRequest = 64 << 10

// wireError is an inspection error on the wire.
type wireError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// TokenSHA256 is the hex SHA-256 of an inspection token.
func TokenSHA256(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Handler serves inspections of sandbox uid held by l to callers bearing
// the token whose hex SHA-256 is tokenSHA256; any other uid is not found
// here.
func Handler(l *sandbox.Local, uid, tokenSHA256 string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+InspectPath, func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || tokenSHA256 == "" || subtle.ConstantTimeCompare([]byte(TokenSHA256(got)), []byte(tokenSHA256)) != 1 {
			writeError(w, http.StatusUnauthorized, wireError{Type: "unauthorized", Message: "a valid bearer token is required"})
			return
		}
		var in inspect.Request
		dec := json.NewDecoder(io.LimitReader(r.Body, maxRequest))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			writeError(w, http.StatusBadRequest, wireError{Type: inspect.ErrBadRequest, Message: "body must be an inspection request: " + err.Error()})
			return
		}
		if in.UID != uid {
			writeError(w, http.StatusNotFound, wireError{Type: inspect.ErrNotFound, Message: "this agent serves sandbox " + uid})
			return
		}
		out, err := Answer(r.Context(), l, in, nil)
		if err != nil {
			typ := ErrorType(err)
			status := map[string]int{inspect.ErrPathOutside: http.StatusForbidden, inspect.ErrNotFound: http.StatusNotFound,
				inspect.ErrTooLarge: http.StatusRequestEntityTooLarge, inspect.ErrBadRequest: http.StatusBadRequest}[typ]
			if status == 0 {
				status = http.StatusInternalServerError
			}
			writeError(w, status, wireError{Type: typ, Message: err.Error()})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	return mux
}

func writeError(w http.ResponseWriter, status int, e wireError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e)
}

// Client asks one sandbox agent for inspections.
type Client struct {
	// URL is the agent's base URL (http://<pod ip>:<port>).
	URL   string
	Token string
	// HTTP is the client to use (nil: http.DefaultClient).
	HTTP *http.Client
}

// Inspect sends one inspection; typed errors come back as the sandbox
// package's errors (see FromType).
func (c Client) Inspect(ctx context.Context, in inspect.Request) (inspect.Result, error) {
	var out inspect.Result
	body, err := json.Marshal(in)
	if err != nil {
		return out, err
	}
	ctx, cancel := context.WithTimeout(ctx, in.Wait+time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.URL, "/")+InspectPath, bytes.NewReader(body))
	if err != nil {
		return out, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return out, fmt.Errorf("sandbox agent at %s: %w", c.URL, err)
	}
	defer func() { _ = resp.Body.Close() }() // read only: a close error loses nothing
	if resp.StatusCode != http.StatusOK {
		var e wireError
		if json.NewDecoder(io.LimitReader(resp.Body, maxRequest)).Decode(&e) != nil || e.Message == "" {
			return out, fmt.Errorf("sandbox agent at %s: HTTP %d", c.URL, resp.StatusCode)
		}
		return out, FromType(e.Type, e.Message)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return out, fmt.Errorf("sandbox agent at %s: %w", c.URL, err)
	}
	return out, nil
}
