package models_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/models"
	"github.com/gatehouse/gatehouse/models/modelstest"
)

func TestPool_RefusesBoundsThatCannotWork(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]models.Pool{
		"no connections":      {MaxOpen: 0},
		"more idle than open": {MaxOpen: 4, MaxIdle: 5},
		"negative lifetime":   {MaxOpen: 4, MaxIdle: 4, MaxLifetime: -time.Second},
	} {
		if _, err := models.OpenPool("postgres://127.0.0.1:1/x", p); !errors.Is(err, models.ErrPool) {
			t.Errorf("%s: want ErrPool, got %v", name, err)
		}
	}
}

// TestPool_BusyPoolQueuesAndNeverExceedsItsBound runs 12 concurrent
// queries through a pool of 3 on PostgreSQL: every query succeeds (a
// request that finds the pool busy waits for a connection instead of
// failing), and the server never sees more than 3 of its sessions.
func TestPool_BusyPoolQueuesAndNeverExceedsItsBound(t *testing.T) {
	t.Parallel()
	url := modelstest.SchemaURL(t)
	if url == "" {
		t.Skip("needs PostgreSQL (GATEHOUSE_TEST_DATABASE_URL); CI always sets it")
	}
	db, err := models.OpenPool(url+"&application_name=pool_bound_test", models.Pool{MaxOpen: 3, MaxIdle: 3})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	defer func() { _ = sqlDB.Close() }() // test cleanup: a close error fails nothing
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	seen := make(chan int64, 12)
	for range 12 {
		wg.Go(func() {
			var n int64
			err := db.Raw(`SELECT count(*) FROM pg_stat_activity, pg_sleep(0.05) WHERE application_name = 'pool_bound_test'`).Scan(&n).Error
			errs <- err
			seen <- n
		})
	}
	wg.Wait()
	close(errs)
	close(seen)
	for err := range errs {
		if err != nil {
			t.Fatalf("a query failed instead of waiting for a connection: %v", err)
		}
	}
	for n := range seen {
		if n > 3 {
			t.Fatalf("the server saw %d sessions of a pool bounded to 3", n)
		}
	}
	if st := sqlDB.Stats(); st.MaxOpenConnections != 3 || st.WaitCount == 0 {
		t.Fatalf("pool stats %+v: want max 3 and some waits", st)
	}
}
