package dryrun

import (
	"context"
	"testing"
)

func TestMark(t *testing.T) {
	if Is(context.Background()) {
		t.Error("an unmarked context is a check only")
	}
	ctx, cancel := context.WithCancel(With(context.Background()))
	defer cancel()
	if !Is(ctx) {
		t.Error("a context derived from a marked one is not a check only")
	}
}
