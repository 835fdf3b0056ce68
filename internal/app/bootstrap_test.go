package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
)

// TestBootstrapOperator_DocumentedOpensslValueAuthenticatesAsOperator stores
// the bootstrap token the way .env.example and helm/README.md say to make
// it (`openssl rand -hex 32`: 64 hex characters, no prefix) through the
// function API() calls at start, then presents exactly that value.
func TestBootstrapOperator_DocumentedOpensslValueAuthenticatesAsOperator(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		secret := make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			t.Fatal(err)
		}
		token := hex.EncodeToString(secret)
		if err := storeBootstrapOperator(ctx, db, token); err != nil {
			t.Fatalf("api start with the documented token: %v", err)
		}
		if err := storeBootstrapOperator(ctx, db, token); err != nil {
			t.Fatalf("api restart with the same token: %v", err)
		}
		p, err := platform.Authenticate(ctx, db, token)
		if err != nil {
			t.Fatalf("Bearer <documented token>: %v", err)
		}
		if p.Role != platform.RoleOperator {
			t.Fatalf("role %s, want operator", p.Role)
		}
		if _, err := platform.Authenticate(ctx, db, "op_"+token); !errors.Is(err, platform.ErrInvalidCredential) {
			t.Fatalf("only the exact value may authenticate; op_+value gave %v", err)
		}
	})
}

// TestBootstrapOperator_RefusesPlaceholderNamingTheAcceptedForm keeps the
// .env.example placeholder (and other weak values) from becoming an
// operator credential, with an error that says what to set instead.
func TestBootstrapOperator_RefusesPlaceholderNamingTheAcceptedForm(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	for _, token := range []string{"change-me-operator-token", "op_short", "mk_" + strings.Repeat("a", 40), strings.Repeat("a", 40) + " b"} {
		err := storeBootstrapOperator(context.Background(), db, token)
		if !errors.Is(err, platform.ErrMalformedBootstrapToken) {
			t.Errorf("%q: want ErrMalformedBootstrapToken, got %v", token, err)
			continue
		}
		if !strings.Contains(err.Error(), "openssl rand -hex 32") || !strings.Contains(err.Error(), "op_") {
			t.Errorf("%q: the error must state the accepted form: %v", token, err)
		}
	}
}
