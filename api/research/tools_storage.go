package research

// Storage: schemas here, behaviour in issue #7.
func init() {
	const issue = "issue #7: storage"
	t := func(name, desc string, ro, hidden bool, schema map[string]any) Tool {
		return Tool{Name: name, Description: desc, Schema: schema, ReadOnly: ro, Hidden: hidden, Feature: FeatureStorage, Issue: issue}
	}
	registerFamily("storage",
		t("storage.submit", "Register an object and get a one-line upload command.", false, false,
			object([]string{"project_id", "path", "kind", "sha256", "size_bytes"}, props{"project_id": projectID, "path": strLen("local path", 1, 1024),
				"kind": enum("kind", "dataset", "model", "other"), "sha256": sha256Hex, "size_bytes": integer("size", 0, 1<<50),
				"name": strLen("name", 1, 200), "content_type": str("MIME type"), "producing_experiment_id": experimentID,
				"producing_run": str("run"), "source_uri": str("source URI"), "notes": strLen("notes", 0, 4000)})),
		t("storage.fetch", "Get a one-line download command for an object.", true, false,
			object([]string{"project_id", "path"}, props{"project_id": projectID, "path": strLen("local path", 1, 1024), "object_id": str("object id"), "name": str("name")})),
		t("storage.find", "Find storage objects.", true, false,
			object([]string{"project_id"}, props{"project_id": projectID, "object_id": str("object id"), "name": str("name"), "version": integer("version", 1, 1<<30),
				"kind": enum("kind", "dataset", "model", "other"), "status": enum("status", "uploading", "completing", "available", "expired", "deleted"),
				"include_expired": boolean("include expired"), "limit": integer("limit", 1, 200), "offset": integer("offset", 0, 1<<30),
				"compact": boolean("compact rows"), "include_download": boolean("include download commands")})),
		t("storage.object", "Pin, unpin, renew or delete an object.", false, false,
			object([]string{"project_id", "object_id", "action"}, props{"project_id": projectID, "object_id": str("object id"), "action": enum("action", "pin", "unpin", "renew", "delete")})),
		t("storage.put_object", "Internal: first step of the two-step upload.", false, true,
			object([]string{"project_id", "object_id"}, props{"project_id": projectID, "object_id": str("object id")})),
		t("storage.complete_upload", "Internal: complete an upload.", false, true,
			object([]string{"project_id", "object_id"}, props{"project_id": projectID, "object_id": str("object id")})),
	)
}
