package api

import (
	"github.com/gatehouse/gatehouse/api/rest"
)

// mountFlywheel registers the flywheel wire contract, operator rollout endpoints and the LLM gateway.
func mountFlywheel(r *rest.Router, d Deps, svc *services) error {
	svc.flywheel.Mount(r, d)
	return nil
}
