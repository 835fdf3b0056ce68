package e2e

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func signalNotifyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
