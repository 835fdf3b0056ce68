package inspect

import "time"

// Inspection operations (Request.Op).
const (
	// OpRuns answers the sandbox's runs, long-polled up to Request.Wait.
	OpRuns = "runs"
	// OpFiles answers the sandbox's file list.
	OpFiles = "files"
	// OpRead answers one chunk of a file.
	OpRead = "read"
	// OpDigest answers a file's sha256 and size without moving it.
	OpDigest = "digest"
)

// Error types an inspection answers with; none is worth retrying.
const (
	// ErrPathOutside is a path that leaves the sandbox's working directory.
	ErrPathOutside = "path_outside"
	// ErrNotFound is a sandbox or file that does not exist.
	ErrNotFound = "not_found"
	// ErrTooLarge is a file over the request's bound.
	ErrTooLarge = "too_large"
	// ErrBadRequest is an unknown operation or an out-of-range chunk.
	ErrBadRequest = "bad_request"
)

// Request asks the host holding a sandbox for its runs (waiting up to
// Wait while any runs), its file list, one chunk of a file, or a file's
// digest.
type Request struct {
	HostQueue string
	UID       string
	Op        string
	// Wait is the runs long poll (0: answer at once).
	Wait time.Duration `json:",omitempty"`
	// OutputTail and OutputTotal bound run outputs (see sandbox.TrimRuns).
	OutputTail  int `json:",omitempty"`
	OutputTotal int `json:",omitempty"`
	// MaxFiles bounds the file list.
	MaxFiles int `json:",omitempty"`
	// Path, Offset and Length name the chunk to read.
	Path   string `json:",omitempty"`
	Offset int64  `json:",omitempty"`
	Length int    `json:",omitempty"`
	// MaxBytes bounds the file a digest reads.
	MaxBytes int64 `json:",omitempty"`
}

// Run is one run as an inspection carries it.
type Run struct {
	Seq       int
	Command   string
	Status    string
	StartedAt time.Time
	EndedAt   *time.Time `json:",omitempty"`
	ExitCode  *int       `json:",omitempty"`
	Output    string
	Truncated bool `json:",omitempty"`
}

// Result is what the holding host answered.
type Result struct {
	Runs  []Run    `json:",omitempty"`
	Files []string `json:",omitempty"`
	Data  []byte   `json:",omitempty"`
	// Size is the whole file's size (reads and digests).
	Size int64 `json:",omitempty"`
	// SHA256 is a digest's hex sha256.
	SHA256 string `json:",omitempty"`
}
