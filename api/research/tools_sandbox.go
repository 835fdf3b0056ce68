package research

// Sandboxes (feature GATEHOUSE_FEATURE_SANDBOXES): durable machines an agent
// reaches over SSH with its own key. Each is a workflow sandbox/<uid> (the
// authority for status and expiry); handlers live in sandbox_*.go.
func init() {
	pick := func(extra props, required ...string) map[string]any {
		p := props{"project_id": projectID, "experiment_id": experimentID, "sandbox_uid": strLen("sandbox uid", 1, 64)}
		for k, v := range extra {
			p[k] = v
		}
		return object(append([]string{"project_id"}, required...), p)
	}
	t := func(name, desc string, ro bool, h Handler, schema map[string]any) Tool {
		return Tool{Name: name, Description: desc, Schema: schema, ReadOnly: ro, Feature: FeatureSandboxes, Handler: h}
	}
	path := map[string]any{"type": "string", "minLength": 1, "maxLength": 1024, "pattern": `^[^\x00-\x1f]+$`}
	health := t("sandbox.health", "Internal: provider health.", true, sandboxHealth, object(nil, props{"provider": str("provider")}))
	health.Hidden = true
	registerFamily("sandbox",
		t("sandbox.options", "List what each sandbox provider offers (instance types with cpu, memory, gpu, region).", true, sandboxOptions,
			object([]string{"project_id"}, props{"project_id": projectID, "gpu": boolean("only GPU types"), "region": str("region filter"),
				"provider": str("provider filter")})),
		t("sandbox.request", "Request a durable sandbox reachable over SSH with your public key; it is torn down when time_limit (seconds, default 3600) passes unless extended.", false, sandboxRequest,
			object([]string{"project_id", "public_key"}, props{"project_id": projectID, "public_key": strLen("SSH public key (authorized_keys line)", 16, 8000),
				"provider": str("provider (default: the deployment's first; sandbox.options names it)"), "instance_type": str("instance type"), "region": str("region"), "gpu": boolean("gpu"),
				"cpu": number("cpus"), "memory": str("memory, e.g. 4Gi"), "time_limit": integer("seconds", 60, 86400),
				"additional": boolean("an additional sandbox (default false)"), "experiment_id": experimentID})),
		t("sandbox.get", "Get one sandbox (by sandbox_uid, or the active one of experiment_id or the project).", true, sandboxGet, pick(nil)),
		t("sandbox.list", "List the project's sandboxes (of experiment_id when given).", true, sandboxList, pick(nil)),
		t("sandbox.attach", "Attach a sandbox to an experiment.", false, sandboxAttach, pick(nil, "experiment_id", "sandbox_uid")),
		t("sandbox.extend", "Extend a sandbox's time limit (default 1800 seconds, at most 30 minutes per call).", false, sandboxExtend,
			pick(props{"seconds": integer("seconds (default 1800)", 1, 1800)})),
		t("sandbox.runs", "Commands run in the sandbox; wait_seconds long-polls until none is running (recommended ≤ 45, capped at 300).", true, sandboxRuns,
			pick(props{"wait_seconds": map[string]any{"type": "integer", "minimum": 0, "description": "seconds to long-poll (recommended ≤ 45; more than 300 waits 300)"}})),
		t("sandbox.terminal", "Terminal output of the sandbox's commands.", true, sandboxTerminal,
			pick(props{"tail": integer("lines", 1, 10000), "since": map[string]any{"type": "string", "format": "date-time", "description": "RFC 3339 time"}})),
		t("sandbox.pull_outputs", "Copy named paths of the sandbox working directory into storage objects (sha256, linked to the experiment).", false, sandboxPullOutputs,
			pick(props{"paths": map[string]any{"type": "array", "minItems": 1, "maxItems": 100, "items": path, "description": "paths relative to the working directory"}}, "paths")),
		t("sandbox.release", "Release sandboxes; without confirm_retained answers a retention checklist and destroys nothing.", false, sandboxRelease,
			pick(props{"confirm_retained": boolean("confirm (default false)")})),
		health,
	)
}
