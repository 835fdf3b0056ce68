package api

import (
	"github.com/gatehouse/gatehouse/api/research"
	"github.com/gatehouse/gatehouse/api/rest"
)

// mountResearch registers the research tools (MCP and REST).
func mountResearch(r *rest.Router, d Deps, svc *services) error {
	research.MountService(r, d, svc.research, Version)
	return nil
}
