package pause

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if !For(context.Background(), time.Minute) {
			t.Error("For(background, 1m) = false, want true")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		if For(ctx, time.Minute) {
			t.Error("For(ctx ending after 1s, 1m) = true, want false")
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("For(ctx ending after 1s, 1m) returned after %v, want 1s", got)
		}
	})
}
