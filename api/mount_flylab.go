package api

import (
	"github.com/gatehouse/gatehouse/api/flylab"
	"github.com/gatehouse/gatehouse/api/rest"
)

// mountFlyLab registers the FlyLab tools (MCP, REST, published documents, operator approval).
func mountFlyLab(r *rest.Router, d Deps, svc *services) error {
	flylab.MountService(r, d, svc.flylab)
	return nil
}
