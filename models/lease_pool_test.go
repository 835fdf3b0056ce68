package models

import (
	"os"
	"testing"
)

// TestHeartbeatPool_CommitsAsynchronouslyAndOnlyIt proves the heartbeat
// pool's sessions run with synchronous_commit off while the main pool's
// keep the server's default (on), and that SQLite gets no second pool.
func TestHeartbeatPool_CommitsAsynchronouslyAndOnlyIt(t *testing.T) {
	if db, err := OpenHeartbeatPool("sqlite:file::memory:", DefaultPool); err != nil || db != nil {
		t.Fatalf("sqlite got a heartbeat pool: %v %v", db, err)
	}
	url := os.Getenv("GATEHOUSE_TEST_DATABASE_URL")
	if url == "" {
		t.Skip("GATEHOUSE_TEST_DATABASE_URL not set: the PostgreSQL half needs a server (CI sets it)")
	}
	main, err := OpenPool(url, Pool{MaxOpen: 2, MaxIdle: 1})
	if err != nil {
		t.Fatal(err)
	}
	beats, err := OpenHeartbeatPool(url, Pool{MaxOpen: 2, MaxIdle: 1})
	if err != nil || beats == nil {
		t.Fatalf("heartbeat pool: %v", err)
	}
	t.Cleanup(func() {
		if s, err := main.DB(); err == nil {
			_ = s.Close()
		}
		if s, err := beats.DB(); err == nil {
			_ = s.Close()
		}
	})
	var mainSetting, beatSetting string
	if err := main.Raw("SHOW synchronous_commit").Scan(&mainSetting).Error; err != nil {
		t.Fatal(err)
	}
	if err := beats.Raw("SHOW synchronous_commit").Scan(&beatSetting).Error; err != nil {
		t.Fatal(err)
	}
	if beatSetting != "off" || mainSetting == "off" {
		t.Fatalf("synchronous_commit: heartbeat pool %q, main pool %q; want off and the default", beatSetting, mainSetting)
	}
}
