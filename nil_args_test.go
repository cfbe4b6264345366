package applypatch_test

import (
	"context"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// TestNilArgumentsRefused: a nil filesystem, patch, proposal or History, or a History
// made without NewHistory, gets an error (or, for a nil History's entries, none), never
// a panic.
func TestNilArgumentsRefused(t *testing.T) {
	ctx := context.Background()
	p, err := applypatch.Parse("*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	mem := afero.NewMemMapFs()
	for name, call := range map[string]func() error{
		"Apply with a nil filesystem": func() error {
			_, err := applypatch.Apply(ctx, nil, "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n", nil)
			return err
		},
		"Resolve with a nil filesystem": func() error { _, err := applypatch.Resolve(ctx, nil, p, nil); return err },
		"Resolve with a nil patch":      func() error { _, err := applypatch.Resolve(ctx, mem, nil, nil); return err },
		"Classify with a nil patch":     func() error { _, err := applypatch.Classify(mem, nil, nil); return err },
		"Classify with a nil filesystem": func() error {
			_, err := applypatch.Classify(nil, p, nil)
			return err
		},
		"the entries of a zero History": func() error { _, err := (&applypatch.History{}).Entries(); return err },
		"an undo with a zero History": func() error {
			_, err := applypatch.Undo(ctx, mem, &applypatch.Options{Workspace: "/", History: &applypatch.History{}})
			return err
		},
		"a session of a nil proposal": func() error {
			<-applypatch.NewSession(nil).Done()
			return applypatch.NewSession(nil).View().Err
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); err == nil {
				t.Error("no error")
			}
		})
	}
	if entries, err := (*applypatch.History)(nil).Entries(); entries != nil || err != nil {
		t.Errorf("a nil History's entries = %v, %v; want none", entries, err)
	}
	if s := (*applypatch.Proposal)(nil).Snapshots(); s != nil {
		t.Errorf("a nil proposal's snapshots = %v", s)
	}
}
