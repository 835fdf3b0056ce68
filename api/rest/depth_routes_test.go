package rest_test

import (
	"net/http"
	"testing"

	"github.com/gatehouse/gatehouse/api/research"
	"github.com/gatehouse/gatehouse/api/rest"
)

// The raw upload routes GuardJSON exempts are spelled in package rest
// (which research imports); this keeps them in step with research's paths.
func TestRawBodyRoutesMatchResearchUploadPaths(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{research.UploadPathPrefix, research.StorageUploadPrefix} {
		if !rest.RawBodyRoute(http.MethodPut, prefix+":token") {
			t.Errorf("PUT %s:token takes raw bytes but GuardJSON would read it as JSON", prefix)
		}
	}
	if rest.RawBodyRoute(http.MethodPost, research.StorageCompletePrefix+":token") {
		t.Error("the storage completion route is not a raw upload")
	}
}
