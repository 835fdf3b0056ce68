package research_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

// centralRepo makes a git repository with two commits and returns its
// directory and the commits' shas.
func centralRepo(t *testing.T) (string, string, string) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	commit := func(content string) string {
		if err := os.WriteFile(filepath.Join(dir, "graph.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add("graph.md"); err != nil {
			t.Fatal(err)
		}
		h, err := wt.Commit(content, &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1_800_000_000, 0)}})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	return dir, commit("first"), commit("second")
}

// checkCentralRefs walks the compare-and-swap contract every research.CentralRefs
// implementation keeps: first advance from research.ZeroSHA, a stale expectation
// changes nothing and reports the current sha, a matching one moves it.
func checkCentralRefs(t *testing.T, refs research.CentralRefs, c1, c2 string) {
	t.Helper()
	ctx := context.Background()
	if got, err := refs.Read(ctx, "p1"); err != nil || got != research.ZeroSHA {
		t.Fatalf("unset ref: %q %v", got, err)
	}
	if got, err := refs.CompareAndSwap(ctx, "p1", research.ZeroSHA, c1); err != nil || got != c1 {
		t.Fatalf("first advance: %q %v", got, err)
	}
	if got, err := refs.CompareAndSwap(ctx, "p1", research.ZeroSHA, c2); err != nil || got != c1 {
		t.Fatalf("stale expectation must leave %s, got %q %v", c1, got, err)
	}
	if got, err := refs.CompareAndSwap(ctx, "p1", c1, c2); err != nil || got != c2 {
		t.Fatalf("second advance: %q %v", got, err)
	}
	if got, _ := refs.Read(ctx, "p2"); got != research.ZeroSHA {
		t.Fatalf("projects share refs: p2 = %q", got)
	}
}

func TestGitCentral_CompareAndSwapOnARealRepository(t *testing.T) {
	t.Parallel()
	dir, c1, c2 := centralRepo(t)
	refs := research.NewCentralRefs(nil, dir)
	checkCentralRefs(t, refs, c1, c2)
	if !strings.HasPrefix(refs.Name("p1"), "git:refs/heads/central/") {
		t.Fatalf("name %q", refs.Name("p1"))
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := repo.Reference(refs.(*research.GitCentral).RefName("p1"), false)
	if err != nil || ref.Hash().String() != c2 {
		t.Fatalf("the branch in the repository must point at %s: %v %v", c2, ref, err)
	}
}

func TestGitCentral_UnknownCommitIsPermanent(t *testing.T) {
	t.Parallel()
	dir, _, _ := centralRepo(t)
	refs := research.NewCentralRefs(nil, dir)
	for _, target := range []string{strings.Repeat("a", 40), "abc123"} {
		if _, err := refs.CompareAndSwap(context.Background(), "p1", research.ZeroSHA, target); !errors.Is(err, research.ErrPermanentAdvance) {
			t.Errorf("target %q: want research.ErrPermanentAdvance, got %v", target, err)
		}
	}
	if got, _ := refs.Read(context.Background(), "p1"); got != research.ZeroSHA {
		t.Fatalf("a refused advance moved the ref to %q", got)
	}
}

func TestDBCentral_CompareAndSwap(t *testing.T) {
	t.Parallel()
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		checkCentralRefs(t, research.NewCentralRefs(db, ""), strings.Repeat("1", 40), strings.Repeat("2", 40))
	})
}

func TestGitCentral_BranchHeadAndResolveCommit(t *testing.T) {
	t.Parallel()
	dir, c1, c2 := centralRepo(t)
	g := &research.GitCentral{Dir: dir}
	ctx := context.Background()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("experiments/one"), plumbing.NewHash(c1))); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := g.BranchHead(ctx, "experiments/one"); err != nil || !ok || got != c1 {
		t.Fatalf("BranchHead = %q %v %v, want %s", got, ok, err, c1)
	}
	if _, ok, err := g.BranchHead(ctx, "experiments/none"); err != nil || ok {
		t.Fatalf("missing branch: %v %v", ok, err)
	}
	for in, want := range map[string]string{c2: c2, c2[:7]: c2, c1[:12]: c1} {
		if got, ok, err := g.ResolveCommit(ctx, in); err != nil || !ok || got != want {
			t.Errorf("ResolveCommit(%q) = %q %v %v, want %s", in, got, ok, err, want)
		}
	}
	for _, in := range []string{strings.Repeat("e", 40), "eeeeeee"} {
		if got, ok, err := g.ResolveCommit(ctx, in); err != nil || ok {
			t.Errorf("ResolveCommit(%q) = %q %v %v, want not found", in, got, ok, err)
		}
	}
}
