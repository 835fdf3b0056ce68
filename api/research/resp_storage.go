package research

import "time"

// Response bodies of the storage tools and token URLs. Fields are declared
// in the alphabetical order of their JSON keys, the order the maps they
// replace encoded in, so the bytes are unchanged.

// storageObjectResp is an object as tools show it (objectView).
type storageObjectResp struct {
	CompletedAt           *time.Time           `json:"completed_at"`
	ContentType           string               `json:"content_type"`
	CreatedAt             time.Time            `json:"created_at"`
	DeletedAt             *time.Time           `json:"deleted_at"`
	Download              *storageTransferResp `json:"download,omitempty"`
	ExpiresAt             *time.Time           `json:"expires_at"`
	Kind                  string               `json:"kind"`
	LastError             string               `json:"last_error,omitempty"`
	Name                  string               `json:"name"`
	Notes                 string               `json:"notes"`
	ObjectID              string               `json:"object_id"`
	Path                  string               `json:"path"`
	Pinned                bool                 `json:"pinned"`
	ProducingExperimentID string               `json:"producing_experiment_id"`
	ProducingRun          string               `json:"producing_run"`
	SHA256                string               `json:"sha256"`
	SizeBytes             int64                `json:"size_bytes"`
	SourceURI             string               `json:"source_uri"`
	Status                string               `json:"status"`
	Version               int                  `json:"version"`
}

// storageCompactObjectResp is an object as storage.find's compact rows
// show it (objectCompactView).
type storageCompactObjectResp struct {
	Download  *storageTransferResp `json:"download,omitempty"`
	ExpiresAt *time.Time           `json:"expires_at"`
	Kind      string               `json:"kind"`
	Name      string               `json:"name"`
	ObjectID  string               `json:"object_id"`
	Pinned    bool                 `json:"pinned"`
	SHA256    string               `json:"sha256"`
	SizeBytes int64                `json:"size_bytes"`
	Status    string               `json:"status"`
	Version   int                  `json:"version"`
}

// storageTransferResp is one HTTP request of an upload or a download.
type storageTransferResp struct {
	ExpiresAt time.Time `json:"expires_at"`
	Method    string    `json:"method"`
	URL       string    `json:"url"`
}

// storageUploadPlan is what uploadInstructions answers: the one-line
// command and its two requests (PUT the bytes, POST completion).
type storageUploadPlan struct {
	Complete storageTransferResp
	Note     string
	Run      string
	Upload   storageTransferResp
}

// storageSubmitResp answers storage.submit: with the upload plan while
// the object is uploading, else note says nothing is to upload.
type storageSubmitResp struct {
	Complete       *storageTransferResp `json:"complete,omitempty"`
	Created        bool                 `json:"created"`
	Name           string               `json:"name"`
	Note           string               `json:"note"`
	Object         storageObjectResp    `json:"object"`
	ObjectID       string               `json:"object_id"`
	Run            string               `json:"run,omitempty"`
	Status         string               `json:"status"`
	Upload         *storageTransferResp `json:"upload,omitempty"`
	UploadRequired bool                 `json:"upload_required"`
	Version        int                  `json:"version"`
}

// storagePutResp answers storage.put_object: a fresh upload plan.
type storagePutResp struct {
	Complete       storageTransferResp `json:"complete"`
	Note           string              `json:"note"`
	ObjectID       string              `json:"object_id"`
	Run            string              `json:"run"`
	Upload         storageTransferResp `json:"upload"`
	UploadRequired bool                `json:"upload_required"`
}

// storageFetchResp answers storage.fetch.
type storageFetchResp struct {
	Download  storageTransferResp `json:"download"`
	Name      string              `json:"name"`
	Object    storageObjectResp   `json:"object"`
	ObjectID  string              `json:"object_id"`
	Run       string              `json:"run"`
	SHA256    string              `json:"sha256"`
	SizeBytes int64               `json:"size_bytes"`
	Version   int                 `json:"version"`
}

// storageActionResp answers storage.object.
type storageActionResp struct {
	Action   string            `json:"action"`
	Object   storageObjectResp `json:"object"`
	ObjectID string            `json:"object_id"`
	Status   string            `json:"status"`
}

// storageCompletedResp answers a completion (storage.complete_upload and
// the completion URL); replayed when the object was already available.
type storageCompletedResp struct {
	Object   storageObjectResp `json:"object"`
	ObjectID string            `json:"object_id"`
	Replayed bool              `json:"replayed,omitempty"`
	Status   string            `json:"status"`
}

// storageFindResp answers storage.find; next_offset only when more match.
// Objects are storageObjectResp, or storageCompactObjectResp with compact.
type storageFindResp struct {
	Limit      int    `json:"limit"`
	NextOffset *int64 `json:"next_offset,omitempty"`
	Objects    []any  `json:"objects"`
	Offset     int    `json:"offset"`
	Total      int64  `json:"total"`
}

// storageReceivedResp answers the upload URL's PUT.
type storageReceivedResp struct {
	Next           string `json:"next"`
	ObjectID       string `json:"object_id"`
	ReceivedBytes  int64  `json:"received_bytes"`
	ReceivedSHA256 string `json:"received_sha256"`
}
