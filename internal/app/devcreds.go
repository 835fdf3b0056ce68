package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/platform"
)

// devCredentials are the dev stack's agent key and operator token.
type devCredentials struct {
	APIKey        string `json:"api_key"`
	OperatorToken string `json:"operator_token"`
}

// ensureDevCredentials mints the dev credentials: the fixed ones from the
// environment when set, otherwise the ones saved in the data dir by an
// earlier run, otherwise new random ones (saved, mode 0600, so a restart
// keeps the keys an agent was given).
func ensureDevCredentials(ctx context.Context, db *gorm.DB, dataDir, fixedKey, fixedToken string) (devCredentials, error) {
	path := filepath.Join(dataDir, "dev-credentials.json")
	var saved devCredentials
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &saved)
	} else if !errors.Is(err, os.ErrNotExist) {
		return devCredentials{}, err
	}
	want := devCredentials{APIKey: fixedKey, OperatorToken: fixedToken}
	if want.APIKey == "" {
		want.APIKey = saved.APIKey
	}
	if want.OperatorToken == "" {
		want.OperatorToken = saved.OperatorToken
	}
	key, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleAgent, Name: "dev agent", AllProjects: true, Plaintext: want.APIKey})
	if err != nil {
		return devCredentials{}, err
	}
	op, err := platform.Mint(ctx, db, platform.MintRequest{Role: platform.RoleOperator, Name: "dev operator", Plaintext: want.OperatorToken})
	if err != nil {
		return devCredentials{}, err
	}
	got := devCredentials{APIKey: key.Plaintext, OperatorToken: op.Plaintext}
	if got != saved {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return devCredentials{}, err
		}
	}
	// WriteFile sets the mode only when it creates the file: one an older
	// version left readable is tightened too.
	if err := os.Chmod(path, 0o600); err != nil {
		return devCredentials{}, err
	}
	return got, nil
}

// privateDataDir makes dir, the data directory holding the credentials,
// the databases and the blobs, readable by its owner only (0700), also
// when an earlier run left it open.
func privateDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}
