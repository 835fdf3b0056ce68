package sqlitedb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckpointer_KeepsTheLogShortUnderCommitsThatNeverPause: commits
// that never pause leave a passive checkpoint no moment to restart the
// log, so without the checkpointer's restart it grows by every frame
// committed (about 150 MB here, three pages a commit); with it, it stays
// at what commits add while a passive checkpoint runs (9 MB here). Every
// committed row must still be there after the database is reopened.
func TestCheckpointer_KeepsTheLogShortUnderCommitsThatNeverPause(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log.db")
	db, _, err := open(path, checkpointing{interval: 5 * time.Millisecond, restartFrames: 200})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE row (id INTEGER PRIMARY KEY, body BLOB)"); err != nil {
		t.Fatal(err)
	}
	const commits = 12000
	body := []byte(strings.Repeat("x", 3000)) // a page of its own each
	for i := range commits {
		if _, err := db.Exec("INSERT INTO row (id, body) VALUES (?, ?)", i, body); err != nil {
			t.Fatal(err)
		}
	}
	info, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if limit := int64(32 << 20); info.Size() > limit {
		t.Errorf("the log grew to %d bytes over %d commits; want it restarted below %d", info.Size(), commits, limit)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = again.Close() }()
	var n int
	if err := again.QueryRow("SELECT count(*) FROM row").Scan(&n); err != nil || n != commits {
		t.Fatalf("%d rows after reopening (%v), want %d", n, err, commits)
	}
}

// TestCheckpointer_CommitsLeaveCheckpointsToIt: no commit copies the log
// back by itself below the backstop, so none waits for a checkpoint.
func TestCheckpointer_CommitsLeaveCheckpointsToIt(t *testing.T) {
	t.Parallel()
	db, ck, err := open(filepath.Join(t.TempDir(), "quiet.db"), checkpointing{interval: time.Hour, restartFrames: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	if _, err := db.Exec("CREATE TABLE row (id INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	const commits = 3000 // three times SQLite's default autocheckpoint
	for i := range commits {
		if _, err := db.Exec("INSERT INTO row (id) VALUES (?)", i); err != nil {
			t.Fatal(err)
		}
	}
	frames, err := checkpoint(ck.own, "PASSIVE")
	if err != nil {
		t.Fatal(err)
	}
	if frames < commits {
		t.Fatalf("the log held %d frames after %d commits: a commit checkpointed", frames, commits)
	}
}

// TestOpen_ClosingTheDatabaseStopsItsCheckpointer: the checkpointer's
// goroutine and connection end with the database they serve.
func TestOpen_ClosingTheDatabaseStopsItsCheckpointer(t *testing.T) {
	t.Parallel()
	db, ck, err := open(filepath.Join(t.TempDir(), "closed.db"), checkpointing{interval: time.Millisecond, restartFrames: 200})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ck.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the checkpointer still runs after its database was closed")
	}
	if err := ck.own.Ping(); err == nil {
		t.Fatal("the checkpointer's connection is still open")
	}
}

// TestOpen_AnInMemoryDatabaseHasNoCheckpointer: it has no log to copy.
func TestOpen_AnInMemoryDatabaseHasNoCheckpointer(t *testing.T) {
	t.Parallel()
	db, ck, err := open(":memory:", defaultCheckpointing)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Close() }()
	if ck != nil {
		t.Fatal("an in-memory database got a checkpointer")
	}
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
}
