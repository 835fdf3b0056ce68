package research

// Reasons a ToolError of the storage tools carries (its "reason" field),
// refining its code.
const (
	// reasonUploadRejected: the uploaded bytes did not match the declared
	// sha256 and size_bytes; nothing was kept (code invalid_input).
	reasonUploadRejected = "upload_rejected"
)
