// Command gatehouse is the one Gatehouse binary: `dev` runs everything in one
// process with no outside services; `api`, `worker` and `migrate` are the
// production roles against a real Temporal cluster and PostgreSQL.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCommand().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "gatehouse:", err)
		os.Exit(1)
	}
}
