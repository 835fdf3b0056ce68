package research

import (
	"testing"
	"time"

	models "github.com/gatehouse/gatehouse/models/research"
)

// storeSandbox stores sandbox uid of project prj_k with the provider,
// status and SSH host given, expiring in an hour, and returns it.
func storeSandbox(t *testing.T, s *Service, uid, provider, status, host string) models.Sandbox {
	t.Helper()
	now := time.Now().UTC()
	sb := models.Sandbox{UID: uid, ProjectID: "prj_k", Provider: provider, InstanceType: provider + "-small", PublicKey: "k",
		Status: status, SSHHost: host, SSHPort: 2222, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := s.DB.Create(&sb).Error; err != nil {
		t.Fatal(err)
	}
	return sb
}
