package flywheel

import (
	"errors"
	"strings"

	"gorm.io/gorm"
)

// Owner forms, as stored in the owner column of rollouts and turns.
//
//   - "key:<credential id>": one agent key (its tenant) and no other.
//   - "project:<project id>": every agent key that may use the project
//     (platform.Principal.MayUseProject).
//   - "" (OwnerUnrestricted): every key not limited to projects (granted
//     all projects, or granted none); what an enqueue that names no owner
//     gets, so a key limited to some projects never sees a rollout nobody
//     scoped to it.
const (
	OwnerKeyPrefix     = "key:"
	OwnerProjectPrefix = "project:"
	OwnerUnrestricted  = ""
)

// KeyOwner is the owner value of one agent key.
func KeyOwner(credentialID string) string { return OwnerKeyPrefix + credentialID }

// ProjectOwner is the owner value of a project.
func ProjectOwner(projectID string) string { return OwnerProjectPrefix + projectID }

// ErrBadOwner is returned for an owner value of no known form.
var ErrBadOwner = errors.New("owner must be key:<credential id>, project:<project id> or empty")

// ValidOwner checks an owner value's form.
func ValidOwner(owner string) error {
	switch {
	case owner == OwnerUnrestricted:
		return nil
	case strings.HasPrefix(owner, OwnerKeyPrefix) && len(owner) > len(OwnerKeyPrefix) && len(owner) <= 300:
		return nil
	case strings.HasPrefix(owner, OwnerProjectPrefix) && len(owner) > len(OwnerProjectPrefix) && len(owner) <= 300:
		return nil
	}
	return ErrBadOwner
}

// Claimant is who claims: the agent key and the projects it may use. It
// mirrors platform.Principal, so this package needs nothing of platform.
type Claimant struct {
	CredentialID string
	AllProjects  bool
	Projects     []string
}

// MayTake reports whether the claimant may take a rollout of owner.
func (c Claimant) MayTake(owner string) bool {
	switch {
	case owner == KeyOwner(c.CredentialID):
		return true
	case strings.HasPrefix(owner, OwnerKeyPrefix):
		return false
	case c.AllProjects:
		return true
	case owner == OwnerUnrestricted:
		return !c.limited()
	}
	for _, p := range c.Projects {
		if owner == ProjectOwner(p) {
			return true
		}
	}
	return false
}

// limited reports whether the key is limited to some projects.
func (c Claimant) limited() bool { return !c.AllProjects && len(c.Projects) > 0 }

// scope restricts q to the rollouts the claimant may take (MayTake as SQL).
// A restricted key's scope is an IN list, which the owner index serves.
func (c Claimant) scope(q *gorm.DB) *gorm.DB {
	if c.AllProjects {
		owners, prefix := c.allProjectsOwners()
		return q.Where("(owner IN ? OR owner LIKE ?)", owners, prefix)
	}
	return q.Where("owner IN ?", c.listedOwners())
}

// allProjectsOwners are the owners an all-projects key takes: the
// unrestricted rollouts and its own by name, every project's by prefix.
func (c Claimant) allProjectsOwners() ([]string, string) {
	return []string{OwnerUnrestricted, KeyOwner(c.CredentialID)}, OwnerProjectPrefix + "%"
}

// listedOwners are the owners a key that is not all-projects may take:
// its own, the unrestricted ones unless it is limited, and its projects'.
func (c Claimant) listedOwners() []string {
	owners := make([]string, 0, len(c.Projects)+2)
	owners = append(owners, KeyOwner(c.CredentialID))
	if !c.limited() {
		owners = append(owners, OwnerUnrestricted)
	}
	for _, p := range c.Projects {
		owners = append(owners, ProjectOwner(p))
	}
	return owners
}
