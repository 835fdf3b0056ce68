package api

import (
	"github.com/gatehouse/gatehouse/api/research"
	"github.com/gatehouse/gatehouse/api/rest"
)

// mountResearch registers the research tools (MCP and REST); /mcp/research
// refuses foreign Host and Origin names (DNS-rebinding protection).
func mountResearch(r *rest.Router, d Deps, svc *services) error {
	research.MountService(r.Group("", rest.GuardHosts(mcpHostPolicy(d), "/mcp/research")), d, svc.research, Version)
	return nil
}
