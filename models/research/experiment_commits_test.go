package research_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

func TestParseObjectID(t *testing.T) {
	t.Parallel()
	full := strings.Repeat("ab", 20)
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"abc1234", "abc1234", true},
		{full, full, true},
		{strings.ToUpper(full), full, true},
		{strings.Repeat("c", 64), strings.Repeat("c", 64), true},
		{strings.Repeat("C", 64), strings.Repeat("c", 64), true},
		{"abc123", "", false},                // too short
		{strings.Repeat("a", 65), "", false}, // too long
		{"ABC1234", "", false},               // uppercase abbreviation
		{"abc123g", "", false},               // not hex
		{"abc 1234", "", false},              // space
		{strings.Repeat("A", 41), "", false}, // uppercase of no full length
		{"", "", false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := research.ParseObjectID(c.in)
			if c.ok && (err != nil || got != c.want) {
				t.Fatalf("ParseObjectID(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
			if !c.ok && !errors.Is(err, research.ErrBadObjectID) {
				t.Fatalf("ParseObjectID(%q) = %q, %v; want ErrBadObjectID", c.in, got, err)
			}
		})
	}
}

func TestParseBranch(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"experiments/scale-up": "experiments/scale-up",
		"refs/heads/main":      "main",
		"feature/a.b_c-1":      "feature/a.b_c-1",
		"x":                    "x",
	}
	for in, want := range good {
		if got, err := research.ParseBranch(in); err != nil || got != want {
			t.Errorf("ParseBranch(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"", "refs/heads/", "@", "-x", "/x", "x/", "x.", "a..b", "a//b", "a@{1}", "a b", "a~1", "a^", "a:b",
		"a?", "a*", "a[b", `a\b`, "a\tb", "a\x7fb", ".hidden", "x/.y", "x.lock", "x/y.lock/z", "refs/tags/v1", strings.Repeat("a", 256)}
	for _, in := range bad {
		if got, err := research.ParseBranch(in); !errors.Is(err, research.ErrBadBranch) {
			t.Errorf("ParseBranch(%q) = %q, %v; want ErrBadBranch", in, got, err)
		}
	}
}

func TestRecordExperimentCode_BaseThenHeadOnOneBranch(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		now := time.Unix(1_800_000_000, 0).UTC()
		if _, ok, err := research.ExperimentCodeOf(ctx, db, "exp_1"); ok || err != nil {
			t.Fatalf("nothing recorded yet: %v %v", ok, err)
		}
		base := strings.Repeat("1", 40)
		c, err := research.RecordExperimentCode(ctx, db, research.CodeUpdate{ExperimentID: "exp_1", ProjectID: "p1", Branch: "experiments/one",
			BaseSHA: strings.ToUpper(base), BaseSource: research.ShaFromCentral}, now)
		if err != nil || c.BaseSHA != base || c.Branch != "experiments/one" || c.HeadSHA != "" || c.BaseRecordedAt == nil {
			t.Fatalf("start: %+v %v", c, err)
		}
		c, err = research.RecordExperimentCode(ctx, db, research.CodeUpdate{ExperimentID: "exp_1", ProjectID: "p1",
			HeadSHA: "abc1234", HeadSource: research.ShaFromEvidence}, now.Add(time.Minute))
		if err != nil || c.BaseSHA != base || c.BaseSource != research.ShaFromCentral || c.HeadSHA != "abc1234" || c.Branch != "experiments/one" {
			t.Fatalf("submit: %+v %v", c, err)
		}
		// A recorded branch is never replaced, and CheckBranch refuses another.
		c, err = research.RecordExperimentCode(ctx, db, research.CodeUpdate{ExperimentID: "exp_1", ProjectID: "p1", Branch: "other"}, now)
		if err != nil || c.Branch != "experiments/one" {
			t.Fatalf("branch replaced: %+v %v", c, err)
		}
		var me *research.Error
		if err := research.CheckBranch(c, "other"); !errors.As(err, &me) || me.Code != research.CodeInvalid || me.Field != "/evidence/branch" {
			t.Fatalf("CheckBranch(other) = %v", err)
		}
		for _, same := range []string{"", "experiments/one"} {
			if err := research.CheckBranch(c, same); err != nil {
				t.Fatalf("CheckBranch(%q) = %v", same, err)
			}
		}
		if _, err := research.RecordExperimentCode(ctx, db, research.CodeUpdate{ExperimentID: "exp_2", ProjectID: "p1"}, now); err != nil {
			t.Fatal(err)
		}
		codes, err := research.ExperimentCodes(ctx, db, []string{"exp_1", "exp_2", "exp_none"})
		if err != nil || len(codes) != 2 || codes["exp_1"].HeadSHA != "abc1234" || codes["exp_2"].Branch != "" {
			t.Fatalf("ExperimentCodes: %+v %v", codes, err)
		}
		if got, err := research.ExperimentCodes(ctx, db, nil); err != nil || len(got) != 0 {
			t.Fatalf("no ids: %v %v", got, err)
		}
	})
}
