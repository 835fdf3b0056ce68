package api

import (
	"github.com/gatehouse/gatehouse/api/flylab"
	"github.com/gatehouse/gatehouse/api/rest"
)

// mountFlyLab registers the FlyLab tools (MCP, REST, published documents, operator approval);
// /mcp/flylab refuses foreign Host and Origin names (DNS-rebinding protection).
func mountFlyLab(r *rest.Router, d Deps, svc *services) error {
	flylab.MountService(r.Group("", rest.GuardHosts(mcpHostPolicy(d), "/mcp/flylab")), d, svc.flylab)
	return nil
}

// mcpHostPolicy is the Host and Origin names both MCP endpoints accept:
// loopback names, GATEHOUSE_PUBLIC_URL's host and GATEHOUSE_MCP_ALLOWED_HOSTS.
func mcpHostPolicy(d Deps) rest.HostPolicy {
	return rest.NewHostPolicy(d.Config.PublicURL, d.Config.MCPAllowedHosts)
}
