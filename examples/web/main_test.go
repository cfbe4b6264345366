package main

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/examples/web/webreview"
)

const payload = `*** Begin Patch
*** Update File: a.txt
@@
-one
+uno
*** Delete File: b.txt
*** End Patch
`

// workspace writes a.txt, b.txt and the payload file to a temporary directory.
func workspace(t *testing.T) (dir, payloadFile string) {
	t.Helper()
	dir = t.TempDir()
	for name, content := range map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	payloadFile = filepath.Join(t.TempDir(), "patch.txt")
	if err := os.WriteFile(payloadFile, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, payloadFile
}

// post sends a page form as the browser would.
func post(t *testing.T, page, action string, form url.Values) {
	t.Helper()
	u, err := url.Parse(page)
	if err != nil {
		t.Error(err)
		return
	}
	token := u.Query().Get(webreview.TokenParam)
	form.Set(webreview.TokenParam, token)
	resp, err := http.PostForm("http://"+u.Host+"/"+action+"?"+webreview.TokenParam+"="+token, form)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
}

// The command prints the page's address, serves the review until it settles, applies
// what the review kept and prints the model-visible result.
func TestCommandReviewsAndApplies(t *testing.T) {
	dir, payloadFile := workspace(t)
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"-C", dir, payloadFile}, &stdout, &stderr, func(page string) {
		go func() {
			post(t, page, "deselect", url.Values{"file": {"2"}})
			post(t, page, "submit", url.Values{})
		}()
	})
	if code != exitApplied {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if !strings.HasPrefix(stderr.String(), "Review the patch at http://127.0.0.1:") {
		t.Errorf("stderr %q does not give the page's address", stderr.String())
	}
	if got, want := stdout.String(), "Applied patch: 1 change\nApplied: a.txt hunk 1\nRejected: b.txt\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	for name, want := range map[string]string{"a.txt": "uno\ntwo\n", "b.txt": "bee\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// A patch that does not resolve is refused before any page is served; nothing changes
// and the error names paths as authored only.
func TestCommandRefusesBadPatch(t *testing.T) {
	dir, payloadFile := workspace(t)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644)
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"-C", dir, payloadFile}, &stdout, &stderr, func(string) {
		t.Error("a page was served for a patch that does not apply")
	})
	if code != exitRejected || !strings.HasPrefix(stdout.String(), "Error: ") || !strings.Contains(stdout.String(), "a.txt") {
		t.Errorf("exit %d, stdout %q", code, stdout.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), dir) {
		t.Errorf("output shows the host path %s", dir)
	}
}

// Usage errors exit 2.
func TestCommandUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"a", "b"}, {"-C", t.TempDir(), filepath.Join(t.TempDir(), "missing.txt")}, {"-nope"}} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), args, &stdout, &stderr, nil); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// H5: --help and --version print on standard output and exit 0, as every applypatch
// command does.
func TestHelpAndVersionOnStdout(t *testing.T) {
	for arg, want := range map[string]string{"--help": "usage: web", "-h": "usage: web", "--version": "web "} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{arg}, &stdout, &stderr, nil)
		if code != exitApplied || !strings.HasPrefix(stdout.String(), want) || stderr.Len() > 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout.String(), stderr.String())
		}
	}
}
