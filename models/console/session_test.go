package console_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/console"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/platform"
)

func mintPrincipal(t *testing.T, db *gorm.DB, role platform.Role) (platform.Principal, string) {
	t.Helper()
	ctx := context.Background()
	m, err := platform.Mint(ctx, db, platform.MintRequest{Role: role, Name: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := platform.Authenticate(ctx, db, m.Plaintext)
	if err != nil {
		t.Fatal(err)
	}
	return p, m.Credential.ID
}

func TestSession_OpenLookupCloseRoundTrip(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Now()
		op, _ := mintPrincipal(t, db, platform.RoleOperator)
		opened, err := console.Open(ctx, db, op, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(opened.ID, "cs_") || len(opened.Session.CSRFToken) != 64 {
			t.Fatalf("unexpected session id %q / csrf %q", opened.ID, opened.Session.CSRFToken)
		}
		if strings.Contains(opened.Session.IDHash, opened.ID[3:]) {
			t.Fatal("the stored hash contains the plaintext id")
		}
		got, err := console.Lookup(ctx, db, opened.ID, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if got.OperatorName != "alice" || got.CSRFToken != opened.Session.CSRFToken {
			t.Fatalf("lookup returned %+v", got)
		}
		if err := console.Close(ctx, db, opened.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := console.Lookup(ctx, db, opened.ID, now); !errors.Is(err, console.ErrNoSession) {
			t.Fatalf("after close: %v, want ErrNoSession", err)
		}
	})
}

func TestSession_ExpiredRevokedAndMalformedAreRefused(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Now()
		op, credID := mintPrincipal(t, db, platform.RoleOperator)
		opened, err := console.Open(ctx, db, op, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		for name, id := range map[string]string{"empty": "", "no prefix": opened.ID[3:], "short": "cs_abc", "unknown": "cs_" + strings.Repeat("0", 64)} {
			if _, err := console.Lookup(ctx, db, id, now); !errors.Is(err, console.ErrNoSession) {
				t.Errorf("%s id: %v, want ErrNoSession", name, err)
			}
		}
		if _, err := console.Lookup(ctx, db, opened.ID, now.Add(time.Hour+time.Second)); !errors.Is(err, console.ErrNoSession) {
			t.Errorf("expired: %v, want ErrNoSession", err)
		}
		n, err := console.DeleteExpired(ctx, db, now.Add(2*time.Hour))
		if err != nil || n != 1 {
			t.Errorf("DeleteExpired = %d, %v; want 1", n, err)
		}
		again, err := console.Open(ctx, db, op, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := platform.Revoke(ctx, db, credID); err != nil {
			t.Fatal(err)
		}
		if _, err := console.Lookup(ctx, db, again.ID, now); !errors.Is(err, console.ErrNoSession) {
			t.Errorf("revoked credential: %v, want ErrNoSession", err)
		}
	})
}

func TestSession_AgentKeyCannotOpenASession(t *testing.T) {
	t.Parallel()
	db := modelstest.SQLite(t)
	agent, _ := mintPrincipal(t, db, platform.RoleAgent)
	if _, err := console.Open(context.Background(), db, agent, time.Hour, time.Now()); err == nil {
		t.Fatal("an agent principal opened a console session")
	}
	var n int64
	db.Model(&console.Session{}).Count(&n)
	if n != 0 {
		t.Fatalf("%d sessions stored after a refused open", n)
	}
}
