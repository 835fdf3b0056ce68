package flywheel

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	models "github.com/gatehouse/gatehouse/models/flywheel"
	"github.com/gatehouse/gatehouse/models/platform"
)

// ownerSpec is how an operator names a rollout's owner at enqueue: one
// agent key (its tenant: only that key may claim) or a project (every key
// that may use it). Naming neither leaves the rollout to keys granted all
// projects.
type ownerSpec struct {
	Key     *string `json:"key"`
	Project *string `json:"project"`
}

// claimant is the calling key as the claim queue sees it.
func claimant(p platform.Principal) models.Claimant {
	return models.Claimant{CredentialID: p.CredentialID, AllProjects: p.AllProjects, Projects: p.Projects}
}

// resolveOwner turns a spec into the stored owner; it answers 422 (or 503)
// and returns false for a key that is not a live agent key or a malformed
// project.
func (h *Handler) resolveOwner(c *gin.Context, at string, s *ownerSpec, def string) (string, bool) {
	if s == nil {
		return def, true
	}
	switch {
	case s.Key != nil && s.Project != nil:
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "owner names a key or a project, not both", gin.H{"path": at})
		return "", false
	case s.Project != nil:
		if *s.Project == "" || len(*s.Project) > 64 {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "owner.project must be a project id of 1-64 characters", gin.H{"path": at + "/project"})
			return "", false
		}
		return models.ProjectOwner(*s.Project), true
	case s.Key != nil:
		var cred platform.Credential
		err := h.db.WithContext(c.Request.Context()).Where("id = ? AND revoked_at IS NULL", *s.Key).Take(&cred).Error
		if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && cred.Role != platform.RoleAgent) {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "owner.key must be the credential id of a live agent key", gin.H{"path": at + "/key"})
			return "", false
		}
		if err != nil {
			rest.Unavailable(c, "database unavailable")
			return "", false
		}
		return models.KeyOwner(cred.ID), true
	}
	return def, true
}
