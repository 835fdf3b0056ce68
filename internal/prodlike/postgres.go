package prodlike

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"regexp"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// postgres is the server every database of a stack lives on, reached
// through an administrative URL (any database; "postgres" by default).
type postgres struct {
	admin *url.URL
}

var databaseName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

func newPostgres(adminURL string) (postgres, error) {
	u, err := url.Parse(adminURL)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return postgres{}, fmt.Errorf("prodlike: PostgreSQL URL %q must be postgres://…", adminURL)
	}
	return postgres{admin: u}, nil
}

// url is the connection URL of database name on the same server.
func (p postgres) url(name string) string {
	u := *p.admin
	u.Path = "/" + name
	return u.String()
}

func (p postgres) host() string { return p.admin.Hostname() }

func (p postgres) port() string {
	if port := p.admin.Port(); port != "" {
		return port
	}
	return "5432"
}

func (p postgres) user() string { return p.admin.User.Username() }

func (p postgres) password() string {
	pw, _ := p.admin.User.Password()
	return pw
}

// create makes an empty database, dropping a leftover of the same name.
func (p postgres) create(ctx context.Context, name string) error {
	if err := p.drop(ctx, name); err != nil {
		return err
	}
	return p.exec(ctx, "CREATE DATABASE "+name)
}

// drop removes a database and ends the sessions still connected to it.
func (p postgres) drop(ctx context.Context, name string) error {
	if !databaseName.MatchString(name) {
		return fmt.Errorf("prodlike: %q is not a database name", name)
	}
	return p.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
}

func (p postgres) exec(ctx context.Context, stmt string) error {
	db, err := sql.Open("pgx", p.admin.String())
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }() // the statement ran (or failed) already
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("prodlike: %s: %w", stmt, err)
	}
	return nil
}
