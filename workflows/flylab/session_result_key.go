package flylab

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"go.temporal.io/sdk/workflow"
)

// resultKeyVersion marks the change that names a call's stored result by
// the Update that made it as well as by its operation or revision: a call
// whose activity stored a result but which did not commit (cancelled
// before its commit, or its workflow task lost with its worker) can no
// longer supply the answer of the next call at that revision. Histories
// recorded before it replay with the shared key.
const resultKeyVersion = "flylab-result-key-per-update"

// maxUpdateTag is the longest Update ID a result key carries as it is; a
// longer one is carried as its digest, so the key fits its column.
const maxUpdateTag = 64

// resultKey is the key the call's activity stores its result under: the
// operation key, or the session, tool and revision the call commits,
// followed by the Update's identity. A retry of the same Update (the SDK
// resends it, a new worker replays it) gets the same key; any other call
// gets its own.
func (s *session) resultKey(ctx workflow.Context, tool, operationKey string) string {
	key := operationKey
	if key == "" {
		key = fmt.Sprintf("%s/%s/rev-%d", s.state.SessionID, tool, s.state.Revision+1)
	}
	if workflow.GetVersion(ctx, resultKeyVersion, workflow.DefaultVersion, 1) != 1 {
		return key
	}
	info := workflow.GetCurrentUpdateInfo(ctx)
	if info == nil || info.ID == "" {
		return key
	}
	return key + "/" + updateTag(info.ID)
}

// updateTag is the Update ID, or its digest when it is too long to be a
// part of a key.
func updateTag(id string) string {
	if len(id) <= maxUpdateTag {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256-" + hex.EncodeToString(sum[:16])
}
