package console

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Page sizes of the console's lists.
const (
	// DefaultPageSize is the page size when the request names none.
	DefaultPageSize = 50
	// MaxPageSize bounds a requested page size.
	MaxPageSize = 200
)

// ErrBadCursor is a page cursor this package did not issue (or one that was
// altered); the caller should start again from the first page.
var ErrBadCursor = errors.New("bad page cursor")

// ErrBadPageSize is a page size outside 1..MaxPageSize.
var ErrBadPageSize = fmt.Errorf("page size must be 1-%d", MaxPageSize)

// Cursor is a position in a list ordered by (created_at, id), newest
// first: the next page starts after the row with this key. Its String form
// is opaque to callers.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// cursorJSON is the encoded form; short keys keep links short.
type cursorJSON struct {
	T string `json:"t"`
	I string `json:"i"`
}

// String encodes the cursor for a URL (base64url of a small JSON object).
// The time keeps its offset so that SQLite, which compares times as text,
// sees the same value it stored.
func (c Cursor) String() string {
	b, _ := json.Marshal(cursorJSON{T: c.CreatedAt.Format(time.RFC3339Nano), I: c.ID})
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseCursor decodes a cursor; "" is the first page (nil). Anything that
// is not a cursor String produced is ErrBadCursor.
func ParseCursor(s string) (*Cursor, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > 512 {
		return nil, ErrBadCursor
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	var j cursorJSON
	if err := json.Unmarshal(raw, &j); err != nil || j.I == "" {
		return nil, ErrBadCursor
	}
	t, err := time.Parse(time.RFC3339Nano, j.T)
	if err != nil {
		return nil, ErrBadCursor
	}
	return &Cursor{CreatedAt: t, ID: j.I}, nil
}

// Page asks for one page of a list: Size rows after After (nil: the first).
type Page struct {
	After *Cursor
	Size  int
}

// NewPage checks a requested size (0: DefaultPageSize) and decodes the
// cursor; it fails with ErrBadPageSize or ErrBadCursor.
func NewPage(cursor string, size int) (Page, error) {
	if size == 0 {
		size = DefaultPageSize
	}
	if size < 1 || size > MaxPageSize {
		return Page{}, ErrBadPageSize
	}
	after, err := ParseCursor(cursor)
	if err != nil {
		return Page{}, err
	}
	return Page{After: after, Size: size}, nil
}

// size is the page size to use, DefaultPageSize when unset and never more
// than MaxPageSize.
func (p Page) size() int {
	if p.Size < 1 {
		return DefaultPageSize
	}
	return min(p.Size, MaxPageSize)
}

// keyset orders q newest first by (created_at, id) of table, starts after
// the cursor and reads one row more than the page to learn whether another
// page follows. The row-value comparison works on SQLite and PostgreSQL.
func (p Page) keyset(q *gorm.DB, table string) *gorm.DB {
	if p.After != nil {
		q = q.Where("("+table+".created_at, "+table+".id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	return q.Order(table + ".created_at DESC").Order(table + ".id DESC").Limit(p.size() + 1)
}

// cut trims the extra row keyset read and returns the cursor of the next
// page, nil on the last page.
func cut[T any](p Page, rows []T, key func(T) Cursor) ([]T, *Cursor) {
	n := p.size()
	if len(rows) <= n {
		return rows, nil
	}
	rows = rows[:n]
	next := key(rows[n-1])
	return rows, &next
}
