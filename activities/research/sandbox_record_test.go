package research

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/mocks"
	"gorm.io/gorm"

	"github.com/gatehouse/gatehouse/models/modelstest"
	models "github.com/gatehouse/gatehouse/models/research"
	wf "github.com/gatehouse/gatehouse/workflows/research"
)

// TestRecordSandbox_TellsTheExperimentHowItsSandboxEnded: a sandbox that
// stopped tells its experiment why (an expiry asks for retry_running), a
// running one says only that it runs.
func TestRecordSandbox_TellsTheExperimentHowItsSandboxEnded(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		if err := db.Create(&models.Sandbox{UID: "sbx_rec", ProjectID: "prj_s", ExperimentID: "exp_s", Provider: "local",
			InstanceType: "local", PublicKey: "ssh-ed25519 AAAA", Status: models.SandboxRunning}).Error; err != nil {
			t.Fatal(err)
		}
		tc := &mocks.Client{}
		a := &SandboxActivities{DB: db, Temporal: tc}
		tc.On("SignalWorkflow", ctx, wf.ExperimentWorkflowID("exp_s"), "", wf.SandboxActivitySignal,
			wf.SandboxActivity{SandboxUID: "sbx_rec", Running: true}).Return(nil).Once()
		tc.On("SignalWorkflow", ctx, wf.ExperimentWorkflowID("exp_s"), "", wf.SandboxActivitySignal,
			wf.SandboxActivity{SandboxUID: "sbx_rec", Ended: wf.SandboxEndExpired}).Return(nil).Once()
		expires := time.Now().Add(time.Hour).UTC()
		if err := a.RecordSandbox(ctx, wf.SandboxRecord{UID: "sbx_rec", Status: models.SandboxRunning, ExpiresAt: expires}); err != nil {
			t.Fatal(err)
		}
		if err := a.RecordSandbox(ctx, wf.SandboxRecord{UID: "sbx_rec", Status: wf.SandboxTerminated, ExpiresAt: expires,
			EndReason: wf.SandboxEndExpired}); err != nil {
			t.Fatal(err)
		}
		tc.AssertExpectations(t)
	})
}
