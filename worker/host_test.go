package worker

import (
	"testing"

	"github.com/gatehouse/gatehouse/internal/config"
)

func TestSanitizeHostID_KeepsQueueSafeCharacters(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"worker-a":             "worker-a",
		"Worker-A.example.com": "worker-a.example.com",
		"pod 7/ns:x":           "pod-7-ns-x",
		"  ..odd__host!!  ":    "..odd__host",
		"***":                  "",
	} {
		if got := SanitizeHostID(in); got != want {
			t.Errorf("SanitizeHostID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHostQueue_IsTheSameForEveryProcessOnAHost(t *testing.T) {
	t.Parallel()
	cfg := config.Config{TaskQueue: "gatehouse"}
	a, err := HostQueue(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := HostQueue(cfg)
	if a != b || len(a) <= len("gatehouse-host-") || a[:len("gatehouse-host-")] != "gatehouse-host-" {
		t.Fatalf("host queues %q and %q", a, b)
	}
	cfg.WorkerHostID = "Node 7"
	if got, err := HostQueue(cfg); err != nil || got != "gatehouse-host-node-7" {
		t.Fatalf("with GATEHOUSE_WORKER_HOST_ID: %q %v", got, err)
	}
	cfg.WorkerHostID = "!!!"
	if _, err := HostQueue(cfg); err == nil {
		t.Fatal("an id with nothing left after sanitizing was accepted")
	}
}
