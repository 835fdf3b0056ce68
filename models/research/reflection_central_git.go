package research

import (
	"context"
	"errors"
	"fmt"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
)

// GitCentral keeps each project's central ref as the branch
// refs/heads/central/<project_id> of the repository at Dir.
type GitCentral struct{ Dir string }

// RefName is the branch of a project's central ref.
func (g *GitCentral) RefName(projectID string) plumbing.ReferenceName {
	return plumbing.NewBranchReferenceName("central/" + projectID)
}

// Name implements CentralRefs.
func (g *GitCentral) Name(projectID string) string { return "git:" + g.RefName(projectID).String() }

func (g *GitCentral) open() (*git.Repository, error) {
	return git.PlainOpenWithOptions(g.Dir, &git.PlainOpenOptions{DetectDotGit: false})
}

// Read implements CentralRefs.
func (g *GitCentral) Read(ctx context.Context, projectID string) (string, error) {
	repo, err := g.open()
	if err != nil {
		return "", err
	}
	ref, err := repo.Reference(g.RefName(projectID), false)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return ZeroSHA, nil
	}
	if err != nil {
		return "", err
	}
	return ref.Hash().String(), nil
}

// CompareAndSwap implements CentralRefs with the storer's checked ref
// update; a target that is not a commit of the repository is permanent.
func (g *GitCentral) CompareAndSwap(ctx context.Context, projectID, expected, target string) (string, error) {
	repo, err := g.open()
	if err != nil {
		return "", err
	}
	expected, target = strings.ToLower(expected), strings.ToLower(target)
	if len(target) != 40 {
		return "", fmt.Errorf("%w: %q is not a full commit sha", ErrPermanentAdvance, target)
	}
	if _, err := repo.CommitObject(plumbing.NewHash(target)); err != nil {
		return "", fmt.Errorf("%w: commit %s is not in the central repository: %v", ErrPermanentAdvance, target, err)
	}
	name := g.RefName(projectID)
	cur, err := g.Read(ctx, projectID)
	if err != nil {
		return "", err
	}
	if cur != expected {
		return cur, nil
	}
	next := plumbing.NewHashReference(name, plumbing.NewHash(target))
	var old *plumbing.Reference
	if expected != ZeroSHA {
		old = plumbing.NewHashReference(name, plumbing.NewHash(expected))
	}
	if err := repo.Storer.CheckAndSetReference(next, old); err != nil && !errors.Is(err, storage.ErrReferenceHasChanged) {
		return "", err
	}
	return g.Read(ctx, projectID)
}

// BranchHead returns the commit at the tip of refs/heads/<branch> (ok
// false when the repository has no such branch).
func (g *GitCentral) BranchHead(ctx context.Context, branch string) (string, bool, error) {
	repo, err := g.open()
	if err != nil {
		return "", false, err
	}
	ref, err := repo.Reference(plumbing.NewBranchReferenceName(branch), true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return ref.Hash().String(), true, nil
}

// ResolveCommit expands a full or abbreviated commit id to the full id of
// a commit in the repository (ok false when none matches).
func (g *GitCentral) ResolveCommit(ctx context.Context, id string) (string, bool, error) {
	repo, err := g.open()
	if err != nil {
		return "", false, err
	}
	id = strings.ToLower(id)
	h, err := repo.ResolveRevision(plumbing.Revision(id))
	if err != nil || !strings.HasPrefix(h.String(), id) { // a branch named like a hash is not a commit id
		return "", false, nil
	}
	return h.String(), true, nil
}
