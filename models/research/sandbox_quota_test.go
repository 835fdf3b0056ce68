package research_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	"github.com/gatehouse/gatehouse/models/research"
)

func quotaSandbox(uid string, gpu int) research.Sandbox {
	return research.Sandbox{UID: uid, ProjectID: "prj_q", Provider: "kubernetes", InstanceType: "kube-small", GPU: gpu,
		PublicKey: "ssh-ed25519 AAAA", ExpiresAt: time.Now().Add(time.Hour)}
}

func isQuotaError(err error) bool {
	var me *research.Error
	return errors.As(err, &me) && me.Code == research.CodeConflict && me.Details["reason"] == "sandbox_quota_exceeded"
}

// TestSandboxQuota_ConcurrentRequestsNeverPassTheLiveCap: eight requests
// racing for three slots; exactly three rows are created and the others
// answer the quota error.
func TestSandboxQuota_ConcurrentRequestsNeverPassTheLiveCap(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		q := research.SandboxQuota{MaxLive: 3, MaxGPUs: 2}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					errs[i] = research.CreateSandboxWithinQuota(ctx, db, quotaSandbox(fmt.Sprintf("sbx_c%d", i), 0), q)
					if errs[i] == nil || isQuotaError(errs[i]) {
						return
					}
					time.Sleep(5 * time.Millisecond) // SQLite busy: the request retries
				}
			}()
		}
		wg.Wait()
		created := 0
		for _, err := range errs {
			if err == nil {
				created++
			}
		}
		use, err := research.SandboxUsageOf(ctx, db, "prj_q")
		if err != nil || created != 3 || use.Live != 3 {
			t.Fatalf("created %d, usage %+v %v, errors %v", created, use, err, errs)
		}
	})
}

// TestSandboxQuota_GPUsAndEndedSandboxes: GPUs are capped together; an
// ended sandbox frees its slot and GPUs, a cleanup_pending one does not
// until its workflow has given up on it.
func TestSandboxQuota_GPUsAndEndedSandboxes(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		q := research.SandboxQuota{MaxLive: 3, MaxGPUs: 2}
		for _, uid := range []string{"sbx_g1", "sbx_g2"} {
			if err := research.CreateSandboxWithinQuota(ctx, db, quotaSandbox(uid, 1), q); err != nil {
				t.Fatal(err)
			}
		}
		if err := research.CreateSandboxWithinQuota(ctx, db, quotaSandbox("sbx_g3", 1), q); !isQuotaError(err) {
			t.Fatalf("a third GPU: %v", err)
		}
		if err := research.CreateSandboxWithinQuota(ctx, db, quotaSandbox("sbx_cpu", 0), q); err != nil {
			t.Fatalf("a CPU sandbox under the GPU cap: %v", err)
		}
		now := time.Now().UTC()
		_ = research.MirrorSandbox(ctx, db, research.SandboxUpdate{UID: "sbx_g1", Status: research.SandboxCleanupPending, ExpiresAt: now}, now)
		if err := research.CreateSandboxWithinQuota(ctx, db, quotaSandbox("sbx_g4", 1), q); !isQuotaError(err) {
			t.Fatalf("a GPU while one is cleanup_pending: %v", err)
		}
		stale := now.Add(-25 * time.Hour) // a host that never came back: its workflow gave up
		if err := db.Model(&research.Sandbox{}).Where("uid = ?", "sbx_g1").Update("updated_at", stale).Error; err != nil {
			t.Fatal(err)
		}
		if err := research.CreateSandboxWithinQuota(ctx, db, quotaSandbox("sbx_g6", 1), q); err != nil {
			t.Fatalf("a GPU once a cleanup_pending one went stale: %v", err)
		}
		_ = research.MirrorSandbox(ctx, db, research.SandboxUpdate{UID: "sbx_g6", Status: research.SandboxTerminated, ExpiresAt: now}, now)
		if err := research.CreateSandboxWithinQuota(ctx, db, quotaSandbox("sbx_g5", 1), q); err != nil {
			t.Fatalf("a GPU once one ended: %v", err)
		}
	})
}
