package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestSanitize: F1. A sanitised error names the authored path, never the host name, and
// still matches its cause with errors.Is; a text that spelled the host name out cannot be
// reached with errors.As.
func TestSanitize(t *testing.T) {
	host := "/srv/real/ws/target.txt"
	tests := []struct {
		name  string
		err   error
		want  string
		cause error
	}{
		{"path error", &fs.PathError{Op: "open", Path: host, Err: fs.ErrNotExist},
			"open a.txt: file does not exist", fs.ErrNotExist},
		{"wrapped path error", fmt.Errorf("reading: %w", &fs.PathError{Op: "stat", Path: "/srv/real", Err: syscall.EACCES}),
			"stat a.txt: permission denied", syscall.EACCES},
		{"link error", &os.LinkError{Op: "rename", Old: host, New: host + ".tmp", Err: syscall.EXDEV},
			"rename a.txt: invalid cross-device link", syscall.EXDEV},
		{"text names the host", fmt.Errorf("injected fault at %s: %w", host, fs.ErrPermission),
			"injected fault at a.txt: permission denied", fs.ErrPermission},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.err, host, "a.txt")
			if got.Error() != tt.want {
				t.Errorf("Sanitize = %q, want %q", got, tt.want)
			}
			if strings.Contains(got.Error(), "/srv/real") {
				t.Errorf("%q names a host path", got)
			}
			if !errors.Is(got, tt.cause) {
				t.Errorf("%q does not match its cause %v", got, tt.cause)
			}
			var pe *fs.PathError
			if errors.As(got, &pe) && pe.Path != "a.txt" {
				t.Errorf("errors.As reaches a path error naming %q", pe.Path)
			}
		})
	}
	if Sanitize(nil, host, "a.txt") != nil {
		t.Error("Sanitize(nil) is not nil")
	}
	plain := errors.New("no path here")
	if got := Sanitize(plain, host, "a.txt"); got != plain {
		t.Errorf("Sanitize of an error without paths = %v, want it unchanged", got)
	}
}
