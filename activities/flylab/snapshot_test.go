package flylab

import (
	"context"
	"encoding/json"
	"testing"

	"gorm.io/gorm"

	models "github.com/gatehouse/gatehouse/models/flylab"
	"github.com/gatehouse/gatehouse/models/modelstest"
	wf "github.com/gatehouse/gatehouse/workflows/flylab"
)

func TestSaveSession_ARetriedOlderSnapshotNeverReplacesANewerOne(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *gorm.DB) {
		a := &Activities{DB: db}
		ctx := context.Background()
		for _, rev := range []int{4, 6, 4} {
			raw, _ := json.Marshal(wf.SessionState{SessionID: "session_t", Revision: rev})
			if err := a.SaveSession(ctx, wf.StateSnapshot{SessionID: "session_t", Revision: rev, State: raw}); err != nil {
				t.Fatalf("save %d: %v", rev, err)
			}
		}
		row, err := models.LoadSnapshot(ctx, db, "session_t")
		var st wf.SessionState
		if err != nil || json.Unmarshal([]byte(row.State), &st) != nil || row.Revision != 6 || st.Revision != 6 {
			t.Fatalf("stored %+v (%v), want revision 6", row, err)
		}
	})
}
