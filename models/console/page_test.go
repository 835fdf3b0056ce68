package console_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/console"
	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

func TestCursor_RoundTripsAndRefusesAnythingElse(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 13, 0, 0, 123456000, time.FixedZone("", 5*3600+1800))
	c := console.Cursor{CreatedAt: at, ID: "rexp_1"}
	got, err := console.ParseCursor(c.String())
	if err != nil || got == nil || !got.CreatedAt.Equal(at) || got.ID != "rexp_1" {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	if _, off := got.CreatedAt.Zone(); off != 5*3600+1800 {
		t.Errorf("offset %d lost: SQLite compares times as the text it stored", off)
	}
	if p, err := console.ParseCursor(""); p != nil || err != nil {
		t.Errorf("empty cursor = %v %v, want the first page", p, err)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, bad := range []string{"%%%", "not base64!", enc("[]"), enc(`{"t":"2026-12-01T13:00:00Z"}`),
		enc(`{"t":"yesterday","i":"x"}`), strings.Repeat("A", 600)} {
		if _, err := console.ParseCursor(bad); !errors.Is(err, console.ErrBadCursor) {
			t.Errorf("ParseCursor(%q) = %v, want ErrBadCursor", bad, err)
		}
	}
	for size, want := range map[int]error{0: nil, 1: nil, 200: nil, 201: console.ErrBadPageSize, -1: console.ErrBadPageSize} {
		p, err := console.NewPage("", size)
		if !errors.Is(err, want) {
			t.Errorf("NewPage(size %d) = %v, want %v", size, err, want)
		}
		if err == nil && size == 0 && p.Size != console.DefaultPageSize {
			t.Errorf("default size %d", p.Size)
		}
	}
}

func TestListResearchExperiments_KeysetPagesSeeEveryRowOnce(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		base := time.Now().Truncate(time.Second)
		var want []string
		for i := range 9 {
			id := fmt.Sprintf("e%d", i)
			// Pairs share a created time: the id orders them.
			if err := db.Create(&research.Experiment{ID: id, ProjectID: "p", Name: id, Status: "planned",
				CreatedAt: base.Add(time.Duration(i/2) * time.Millisecond)}).Error; err != nil {
				t.Fatal(err)
			}
			want = append([]string{id}, want...)
		}
		var got []string
		p := console.Page{Size: 2}
		for pages := 0; ; pages++ {
			if pages > 9 {
				t.Fatal("the pages do not end")
			}
			rows, next, err := console.ListResearchExperiments(ctx, db, console.ExperimentFilter{Project: "p"}, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				got = append(got, r.ID)
			}
			if next == nil {
				break
			}
			// The cursor goes through its string form, as in a link.
			if p.After, err = console.ParseCursor(next.String()); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pages %v, want %v", got, want)
		}
	})
}
