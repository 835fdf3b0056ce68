package research

// Storage (feature GATEHOUSE_FEATURE_STORAGE): versioned objects whose bytes
// are checked against their declared SHA-256 and size before they become
// available. Handlers live in storage_*.go.
func init() {
	t := func(name, desc string, ro, hidden bool, h Handler, schema map[string]any) Tool {
		return Tool{Name: name, Description: desc, Schema: schema, ReadOnly: ro, Hidden: hidden, Feature: FeatureStorage, Handler: h}
	}
	localPath := map[string]any{"type": "string", "minLength": 1, "maxLength": 1024, "pattern": `^[^\x00-\x1f'"]+$`, "description": "local path (no quotes)"}
	objectID := strLen("object id", 1, 64)
	registerFamily("storage",
		t("storage.submit", "Register an object (same name + digest is idempotent) and get a one-line upload command; it becomes available only when the uploaded bytes match sha256 and size_bytes.", false, false, storageSubmit,
			object([]string{"project_id", "path", "kind", "sha256", "size_bytes"}, props{"project_id": projectID, "path": localPath,
				"kind": enum("kind", "dataset", "model", "other"), "sha256": sha256Hex, "size_bytes": integer("size", 0, 1<<50),
				"name": strLen("name (default: the path's file name)", 1, 200), "content_type": strLen("MIME type", 0, 200), "producing_experiment_id": experimentID,
				"producing_run": strLen("run", 0, 200), "source_uri": strLen("source URI", 0, 2000), "notes": strLen("notes", 0, 4000)})),
		t("storage.fetch", "Get a one-line download command for an available object (by object_id, or the newest version of name).", true, false, storageFetch,
			object([]string{"project_id", "path"}, props{"project_id": projectID, "path": localPath, "object_id": objectID, "name": strLen("name", 1, 200)})),
		t("storage.find", "Find storage objects (expired ones only with include_expired).", true, false, storageFind,
			object([]string{"project_id"}, props{"project_id": projectID, "object_id": objectID, "name": strLen("name", 1, 200), "version": integer("version", 1, 1<<30),
				"kind": enum("kind", "dataset", "model", "other"), "status": enum("status", "uploading", "completing", "available", "expired", "deleted"),
				"include_expired": boolean("include expired"), "limit": integer("limit (default 50)", 1, 200), "offset": integer("offset", 0, 1<<30),
				"compact": boolean("compact rows"), "include_download": boolean("include download URLs")})),
		t("storage.object", "Pin (no expiry), unpin or renew (expiry restarts), or delete (history kept) an object.", false, false, storageObjectTool,
			object([]string{"project_id", "object_id", "action"}, props{"project_id": projectID, "object_id": objectID, "action": enum("action", "pin", "unpin", "renew", "delete")})),
		t("storage.put_object", "Internal: first step of the two-step upload: a fresh signed upload URL for an uploading object.", false, true, storagePutObject,
			object([]string{"project_id", "object_id"}, props{"project_id": projectID, "object_id": objectID})),
		t("storage.complete_upload", "Internal: second step: check the uploaded bytes against the declaration and make the object available.", false, true, storageCompleteUpload,
			object([]string{"project_id", "object_id"}, props{"project_id": projectID, "object_id": objectID})),
	)
}
