package agent

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/gatehouse/gatehouse/internal/sandbox"
	"github.com/gatehouse/gatehouse/internal/sandbox/inspect"
)

// An agent configured with only the token's SHA-256 (all a Pod spec
// carries) answers the bearer of the token, and refuses a caller who
// presents what it could read from the spec: the hash itself.
func TestHandler_TheSpecsHashIsNoToken(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	srv := httptest.NewServer(Handler(sandbox.LocalAt(t.TempDir()), "sbx_h1", TokenSHA256(token)))
	defer srv.Close()
	ctx := context.Background()
	req := inspect.Request{UID: "sbx_h1", Op: inspect.OpFiles, MaxFiles: 10}
	if _, err := (Client{URL: srv.URL, Token: TokenSHA256(token)}).Inspect(ctx, req); err == nil {
		t.Fatal("the hash from the Pod spec was accepted as the token")
	}
	if _, err := (Client{URL: srv.URL, Token: token}).Inspect(ctx, req); err != nil && ErrorType(err) == "" {
		t.Fatalf("the token's bearer was refused: %v", err)
	}
}

// ConfigFromEnv takes the hash alone, as a Pod sets it.
func TestConfigFromEnv_TakesTheTokensHashAlone(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvUID: "sbx_1", EnvPublicKey: "ssh-ed25519 AAAA k", EnvTokenSHA256: TokenSHA256("t"), EnvRoot: "/workspace"}
	cfg, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil || cfg.TokenSHA256 != TokenSHA256("t") || cfg.Token != "" {
		t.Fatalf("%+v %v", cfg, err)
	}
}
