package webreview

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/chromedp/chromedp"
)

// chromium is Debian's Chromium, which the browser test drives.
const chromium = "/usr/bin/chromium"

// A person reviews the patch in a real browser: expands the files, deselects a hunk,
// writes feedback on it and applies. The files on disk and the model-visible text are
// what the review chose (R1–R10, S2). Screenshots of the review and of the settled page
// are written to a temporary directory, whose path is logged.
func TestBrowserReview(t *testing.T) {
	dir, s := browserWorkspace(t)
	settled := make(chan *applypatch.Result, 1)
	ctx, page := browse(t, s, settled)
	shots, err := os.MkdirTemp("", "webreview-screenshots-")
	if err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		what string
		do   chromedp.Action[chromedp.Void]
	}{
		{"open the page", chromedp.Navigate(page)},
		{"see the header", chromedp.WaitVisible(chromedp.ID("header"))},
		{"mark the page the expand leaves", markLeft},
		{"expand every file", chromedp.Click(chromedp.ID("expand-all"))},
		{"see the hunk rows", chromedp.WaitVisible(chromedp.CSS("body:not([data-left]) #row-1-2 table.diff"))},
		{"deselect the second hunk", chromedp.Click(chromedp.CSS("#row-1-2 button.select"))},
		{"see it dimmed", chromedp.WaitVisible(chromedp.CSS("#row-1-2.dim"))},
		{"open its feedback", chromedp.Click(chromedp.CSS("#row-1-2 details.write summary"))},
		{"write feedback", chromedp.SendKeys(chromedp.CSS("#row-1-2 details.write textarea"), "Keep \"Bye\".\nCallers match on it.")},
		{"stage it", chromedp.Click(chromedp.CSS("#row-1-2 details.write button[type=submit]"))},
		{"see the feedback", chromedp.WaitVisible(chromedp.CSS("#row-1-2 div.feedback"))},
	}
	for _, st := range steps {
		if err := chromedp.Do(ctx, st.do); err != nil {
			t.Fatalf("%s: %v", st.what, err)
		}
	}
	header := text(ctx, t, chromedp.ID("header"))
	if want := "ApplyPatch · 4 files · 4/5 changes · +4 −3 · 1 comment"; header != want {
		t.Errorf("header %q, want %q", header, want)
	}
	if got, want := text(ctx, t, chromedp.ID("primary")), "Apply 4 changes in 4 files · send 1 comment"; got != want {
		t.Errorf("primary action %q, want %q", got, want)
	}
	if got := text(ctx, t, chromedp.CSS("#row-1-2 div.feedback")); got != "✎ Keep \"Bye\".\nCallers match on it." {
		t.Errorf("feedback shown as %q", got)
	}
	screenshot(ctx, t, filepath.Join(shots, "review.png"))

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("primary")), chromedp.WaitVisible(chromedp.ID("result-text"))); err != nil {
		t.Fatalf("apply: %v", err)
	}
	want := "Applied patch: 4 changes\nApplied: greet.go hunk 1\nRejected: greet.go hunk 2\n" +
		"Feedback: greet.go hunk 2: Keep \"Bye\".\n  Callers match on it.\nApplied: greet_test.go\n" +
		"Applied: notes.txt -> README.md\nFuzzy: notes.txt matched while normalizing typographic punctuation\nApplied: TODO.txt"
	if got := text(ctx, t, chromedp.ID("result-text")); got != want {
		t.Errorf("the page shows:\n%s\nwant:\n%s", got, want)
	}
	screenshot(ctx, t, filepath.Join(shots, "result.png"))

	select {
	case res := <-settled:
		if res.Text() != want {
			t.Errorf("the model gets:\n%s\nwant:\n%s", res.Text(), want)
		}
	case <-ctx.Done():
		t.Fatal("the review did not settle")
	}
	files := snapshot(t, dir)
	wantFiles := map[string]string{
		"greet.go":      strings.Replace(workspaceFiles["greet.go"], "Hello, %s", "Hello, %s!", 1),
		"greet_test.go": "package greet\n// TODO: test Hello\n",
		"README.md":     "# greet\n",
	}
	if len(files) != len(wantFiles) {
		t.Errorf("workspace holds %v", files)
	}
	for name, content := range wantFiles {
		if files[name] != content {
			t.Errorf("%s = %q, want %q", name, files[name], content)
		}
	}
}

// markLeft marks the current document before a form post, so that a wait for
// "body:not([data-left]) ..." matches only on the page the post loads: a row the first
// page already shows would otherwise satisfy the wait while the reload is under way, and
// the next click would reach a node the reload removed.
var markLeft = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	_, err := chromedp.Evaluate[bool](`(document.body.dataset.left = "1", true)`)(ctx, t)
	return err
})

// text returns the rendered text of the first element sel matches.
func text[S chromedp.Selectable](ctx context.Context, t *testing.T, sel S) string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("reading %v: %v", sel, err)
	}
	return strings.TrimSpace(got)
}

// screenshot writes a PNG of the whole page to name and logs where.
func screenshot(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(name, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", name)
}

// browserWorkspace writes the test workspace to a directory and opens a review of the
// test payload on it.
func browserWorkspace(t *testing.T) (string, *applypatch.Session) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range workspaceFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, openSession(t, dir)
}

// browse serves the session's review, starts headless Chromium and returns a context
// bounded to a minute and the page's address; the result goes to settled. Without
// Chromium the test is skipped, except in CI, where it fails.
func browse(t *testing.T, s *applypatch.Session, settled chan<- *applypatch.Result) (context.Context, string) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		msg := fmt.Sprintf("the browser test needs Debian's Chromium at %s (apt-get install -y chromium): %v", chromium, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg) // CI installs it; a missing browser must not pass as a skip
		}
		t.Skip(msg)
	}
	start := time.Now()
	t.Cleanup(func() { t.Logf("browser test wall time: %s", time.Since(start).Round(time.Millisecond)) })

	urls := make(chan string, 1)
	go func() {
		res, _ := s.Run(context.Background(), &Reviewer{Ready: func(u string) { urls <- u }})
		settled <- res
	}()
	t.Cleanup(s.Abort)

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browser); err != nil { // starts the browser, without a timeout
		t.Fatalf("starting %s: %v", chromium, err)
	}
	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	t.Cleanup(cancel)

	var page string
	select {
	case page = <-urls:
	case <-ctx.Done():
		t.Fatal("the review page never listened")
	}
	return ctx, page
}

// screenshotsEnv names a directory to write the first-load screenshot to, for the README.
const screenshotsEnv = "WEBREVIEW_SCREENSHOTS"

// The page opens on the diff: without a click, this small patch shows every file and
// hunk open, with old and new line numbers in two gutter columns, and the preview of what
// a remote reviewer sees has no button of its own (R3, R4, C1).
func TestBrowserFirstLoad(t *testing.T) {
	_, s := browserWorkspace(t)
	ctx, page := browse(t, s, make(chan *applypatch.Result, 1))
	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#row-1-1 table.diff"))); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	count := func(expr string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return n
	}
	visible := `[...document.querySelectorAll("table.diff")].filter((e) => e.offsetParent !== null).length`
	if n := count(visible); n != 5 { // two hunks of greet.go, the Add, the Move, the Delete
		t.Errorf("%d diffs visible on first load, want 5", n)
	}
	for i, want := range []string{"7", "", "−", "return fmt.Sprintf(\"Hello, %s\", name)"} {
		if got := text(ctx, t, chromedp.CSS(fmt.Sprintf("#row-1-1 tr.del td:nth-child(%d)", i+1))); got != want {
			t.Errorf("removed line, column %d: %q, want %q", i+1, got, want)
		}
	}
	if got := text(ctx, t, chromedp.CSS("#row-1-1 tr.add td.num.new")); got != "7" {
		t.Errorf("added line's new number %q, want 7", got)
	}
	if n := count(`document.querySelectorAll("#card button, #card form").length`); n != 0 {
		t.Errorf("the remote preview has %d buttons or forms, want none", n)
	}
	if got := text(ctx, t, chromedp.CSS("#card h2")); !strings.HasPrefix(got, "What a remote reviewer sees") {
		t.Errorf("preview heading %q", got)
	}
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		dir = t.TempDir()
	}
	screenshot(ctx, t, filepath.Join(dir, "first-load.png"))
}
