package research

// Sandboxes: schemas here, behaviour in issue #8.
func init() {
	const issue = "issue #8: sandboxes"
	pick := func(extra props, required ...string) map[string]any {
		p := props{"project_id": projectID, "experiment_id": experimentID, "sandbox_uid": strLen("sandbox uid", 1, 64)}
		for k, v := range extra {
			p[k] = v
		}
		return object(append([]string{"project_id"}, required...), p)
	}
	t := func(name, desc string, ro bool, schema map[string]any) Tool {
		return Tool{Name: name, Description: desc, Schema: schema, ReadOnly: ro, Feature: FeatureSandboxes, Issue: issue}
	}
	health := t("sandbox.health", "Internal: provider health.", true, object(nil, props{"provider": str("provider")}))
	health.Hidden = true
	registerFamily("sandbox",
		t("sandbox.options", "List what each sandbox provider offers (instance types with cpu, memory, gpu, region).", true,
			object([]string{"project_id"}, props{"project_id": projectID, "gpu": boolean("only GPU types"), "region": str("region filter")})),
		t("sandbox.request", "Request a durable sandbox reachable over SSH with your public key.", false,
			object([]string{"project_id", "public_key"}, props{"project_id": projectID, "public_key": strLen("SSH public key", 16, 8000),
				"provider": str("provider"), "instance_type": str("instance type"), "region": str("region"), "gpu": boolean("gpu"),
				"cpu": number("cpus"), "memory": str("memory, e.g. 4Gi"), "time_limit": integer("seconds", 60, 86400),
				"additional": boolean("an additional sandbox (default false)"), "experiment_id": experimentID})),
		t("sandbox.get", "Get one sandbox.", true, pick(nil)),
		t("sandbox.list", "List the project's sandboxes.", true, pick(nil)),
		t("sandbox.attach", "Attach a sandbox to an experiment.", false, pick(nil, "experiment_id", "sandbox_uid")),
		t("sandbox.extend", "Extend a sandbox's time limit (at most 30 minutes per call).", false, pick(props{"seconds": integer("seconds (default 1800)", 1, 1800)})),
		t("sandbox.runs", "Commands run in the sandbox; long-polls with wait_seconds.", true, pick(props{"wait_seconds": integer("seconds (≤ 300)", 0, 300)})),
		t("sandbox.terminal", "Terminal output of the sandbox.", true, pick(props{"tail": integer("lines", 1, 10000), "since": str("RFC 3339 time")})),
		t("sandbox.pull_outputs", "Copy named paths of the sandbox into storage objects.", false, pick(props{"paths": strList("paths", 100)})),
		t("sandbox.release", "Release sandboxes; without confirm_retained answers a retention checklist and destroys nothing.", false,
			pick(props{"confirm_retained": boolean("confirm (default false)")})),
		health,
	)
}
