package platform_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
)

func TestCredentials_MintAuthenticateRevoke(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		m, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleAgent, Name: "a", Projects: []string{"p2", "p1"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(m.Plaintext, "mk_") || len(m.Plaintext) != 3+64 {
			t.Fatalf("plaintext %q", m.Plaintext)
		}
		var stored platform.Credential
		if err := db.First(&stored, "id = ?", m.Credential.ID).Error; err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stored.Hash, m.Plaintext[3:]) || stored.Hash != platform.HashSecret(m.Plaintext) {
			t.Fatal("only the SHA-256 of the plaintext may be stored")
		}
		p, err := platform.Authenticate(ctx, db, m.Plaintext)
		if err != nil {
			t.Fatal(err)
		}
		if p.Role != platform.RoleAgent || len(p.Projects) != 2 || p.Projects[0] != "p1" || !p.MayUseProject("p2") || p.MayUseProject("p3") {
			t.Fatalf("principal %+v", p)
		}
		if _, err := platform.Authenticate(ctx, db, m.Plaintext+"x"); !errors.Is(err, platform.ErrInvalidCredential) {
			t.Fatalf("wrong key: %v", err)
		}
		if err := platform.Revoke(ctx, db, m.Credential.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := platform.Authenticate(ctx, db, m.Plaintext); !errors.Is(err, platform.ErrInvalidCredential) {
			t.Fatalf("revoked key still works: %v", err)
		}
	})
}

func TestCredentials_FixedPlaintextIsIdempotent(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		req := platform.MintRequest{Role: platform.RoleOperator, Name: "dev", Plaintext: "op_dev_fixed_token_123"}
		var wg sync.WaitGroup
		ids := make([]string, 4)
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				m, err := platform.Mint(ctx, db, req)
				if err == nil {
					ids[i] = m.Credential.ID
				}
			}(i)
		}
		wg.Wait()
		for _, id := range ids {
			if id == "" || id != ids[0] {
				t.Fatalf("every concurrent mint must return the one credential, got %v", ids)
			}
		}
		var n int64
		db.Model(&platform.Credential{}).Count(&n)
		if n != 1 {
			t.Fatalf("want one stored credential, got %d", n)
		}
		if _, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleAgent, Name: "x", Plaintext: "op_dev_fixed_token_123"}); err == nil {
			t.Fatal("an op_ plaintext must not become an agent key")
		}
	})
}

func TestCredentials_RejectsMalformed(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		for _, tok := range []string{"", "Bearer", "xx_123", "mk_", "op_zzz"} {
			if _, err := platform.Authenticate(context.Background(), db, tok); !errors.Is(err, platform.ErrInvalidCredential) {
				t.Errorf("%q: want ErrInvalidCredential, got %v", tok, err)
			}
		}
	})
}

func TestCredentials_BareBootstrapTokenAuthenticatesExactly(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		token := strings.Repeat("0123456789abcdef", 4) // the shape of `openssl rand -hex 32`
		m, err := platform.BootstrapOperator(ctx, db, token)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(m.Credential.Hint, token[6:]) || m.Credential.Hash != platform.HashSecret(token) {
			t.Fatalf("only the hash and a short hint may be stored: %+v", m.Credential)
		}
		p, err := platform.Authenticate(ctx, db, token)
		if err != nil || p.Role != platform.RoleOperator {
			t.Fatalf("bare bootstrap token: %+v %v", p, err)
		}
		if _, err := platform.Authenticate(ctx, db, token[:len(token)-1]); !errors.Is(err, platform.ErrInvalidCredential) {
			t.Fatalf("a prefix of the token: %v", err)
		}
	})
}
