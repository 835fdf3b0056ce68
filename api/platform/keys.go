package platform

import (
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/api/rest"
	"github.com/gatehouse/gatehouse/models/platform"
)

// Keys mints, lists and revokes credentials (operator only).
type Keys struct {
	DB *gorm.DB
}

type mintRequest struct {
	Role        string   `json:"role"`
	Name        string   `json:"name"`
	Projects    []string `json:"projects"`
	AllProjects bool     `json:"all_projects"`
}

type keyView struct {
	ID          string     `json:"id"`
	Role        string     `json:"role"`
	Name        string     `json:"name"`
	Hint        string     `json:"hint"`
	AllProjects bool       `json:"all_projects"`
	CreatedAt   time.Time  `json:"created_at"`
	RevokedAt   *time.Time `json:"revoked_at,omitempty"`
	// Plaintext is present only in the response that minted the key.
	Plaintext string `json:"plaintext,omitempty"`
}

var projectIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Mint handles POST /operator/v1/keys; the plaintext is shown once.
func (k Keys) Mint(c *gin.Context) {
	var req mintRequest
	if err := c.ShouldBindJSON(&req); err != nil {
		rest.Abort(c, http.StatusBadRequest, "invalid_json", "body must be a JSON object")
		return
	}
	role := platform.Role(req.Role)
	if role != platform.RoleAgent && role != platform.RoleOperator {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", `role must be "agent" or "operator"`, gin.H{"path": "/role"})
		return
	}
	if req.Name == "" || len(req.Name) > 200 {
		rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "name is required (1-200 characters)", gin.H{"path": "/name"})
		return
	}
	for i, p := range req.Projects {
		if !projectIDPattern.MatchString(p) {
			rest.Abort(c, http.StatusUnprocessableEntity, "invalid_input", "project ids are 1-64 of [A-Za-z0-9._-]", gin.H{"path": "/projects/" + itoa(i)})
			return
		}
	}
	m, err := platform.Mint(c.Request.Context(), k.DB, platform.MintRequest{
		Role: role, Name: req.Name, Projects: req.Projects, AllProjects: req.AllProjects,
	})
	if err != nil {
		rest.Abort(c, http.StatusInternalServerError, "internal", "could not store the credential")
		return
	}
	v := view(m.Credential)
	v.Plaintext = m.Plaintext
	c.JSON(http.StatusCreated, v)
}

// List handles GET /operator/v1/keys (never any plaintext).
func (k Keys) List(c *gin.Context) {
	var creds []platform.Credential
	if err := k.DB.WithContext(c.Request.Context()).Order("created_at, id").Find(&creds).Error; err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	out := make([]keyView, 0, len(creds))
	for _, cr := range creds {
		out = append(out, view(cr))
	}
	c.JSON(http.StatusOK, gin.H{"keys": out})
}

// Revoke handles DELETE /operator/v1/keys/:id.
func (k Keys) Revoke(c *gin.Context) {
	err := platform.Revoke(c.Request.Context(), k.DB, c.Param("id"))
	if errors.Is(err, gorm.ErrRecordNotFound) {
		rest.Abort(c, http.StatusNotFound, "not_found", "no active credential with that id")
		return
	}
	if err != nil {
		rest.Unavailable(c, "database unavailable")
		return
	}
	c.JSON(http.StatusOK, gin.H{"revoked": c.Param("id")})
}

func view(c platform.Credential) keyView {
	return keyView{ID: c.ID, Role: string(c.Role), Name: c.Name, Hint: c.Hint, AllProjects: c.AllProjects, CreatedAt: c.CreatedAt, RevokedAt: c.RevokedAt}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
