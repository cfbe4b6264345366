package webreview

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
)

// Every request without the page's token is refused, and so is a form that lacks it or
// that another site sent; none of them changes the review.
func TestTokenRequired(t *testing.T) {
	f := newFixture(t, PageOptions{})
	form := func(tok string) *strings.Reader {
		return strings.NewReader(url.Values{TokenParam: {tok}}.Encode())
	}
	good := "?" + TokenParam + "=" + f.token
	cases := []struct {
		name string
		req  *http.Request
	}{
		{"page without token", httptest.NewRequest("GET", "/", nil)},
		{"page with a wrong token", httptest.NewRequest("GET", "/?"+TokenParam+"=ABCDEF", nil)},
		{"page with a token one letter short", httptest.NewRequest("GET", "/?"+TokenParam+"="+f.token[1:], nil)},
		{"unknown path without token", httptest.NewRequest("GET", "/favicon.ico", nil)},
		{"submit without token", httptest.NewRequest("POST", "/submit", form(""))},
		{"submit with the token in the URL only", httptest.NewRequest("POST", "/submit"+good, form(""))},
		{"submit with the token in the form only", httptest.NewRequest("POST", "/submit", form(f.token))},
		{"submit with a wrong form token", httptest.NewRequest("POST", "/submit"+good, form("ABCDEF"))},
		{"submit from another site", func() *http.Request {
			r := httptest.NewRequest("POST", "/submit"+good, form(f.token))
			r.Header.Set("Sec-Fetch-Site", "cross-site")
			r.Header.Set("Origin", "http://attacker.example")
			return r
		}()},
		{"submit from another origin (no Sec-Fetch-Site)", func() *http.Request {
			r := httptest.NewRequest("POST", "/submit"+good, form(f.token))
			r.Header.Set("Origin", "http://localhost:9999")
			return r
		}()},
	}
	before := snapshot(t, f.dir)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.req.Method == "POST" {
				c.req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			r := f.do(c.req)
			if r.status != http.StatusForbidden {
				t.Fatalf("status %d, want 403", r.status)
			}
			mustLack(t, "refusal", r.text, "ApplyPatch", "greet.go")
		})
	}
	if st := f.s.View().State; st != applypatch.StateOpen {
		t.Fatalf("review is %s after refused requests, want open", st)
	}
	if after := snapshot(t, f.dir); len(after) != len(before) || after["greet.go"] != before["greet.go"] {
		t.Fatal("a refused request changed the workspace")
	}
	if r := f.get(t, ""); r.status != http.StatusOK { // control: the token opens the page
		t.Fatalf("page with token: status %d", r.status)
	}
}

// The page shows the session's header, rows with their glyphs, status letters, counts,
// tags and, once expanded, diff lines with gutter numbers and tints (R1–R5).
func TestPageShowsHeaderRowsAndGutters(t *testing.T) {
	f := newFixture(t, PageOptions{})
	r := f.get(t, "")
	if got, want := header(t, r), "ApplyPatch · 4 files · 5/5 changes · +5 −4"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	if got, want := primary(t, r), "Apply 5 changes in 4 files"; got != want {
		t.Errorf("primary %q, want %q", got, want)
	}
	// A patch this small opens entirely on first load: every file expanded, every hunk open.
	mustContain(t, "first load", r.text, `class="diff`, `<span class="label">`, `title="Fold">▼</button>`)
	mustLack(t, "first load", r.text, `title="Expand">▶</button>`)

	f.mustPost(t, "/fold", url.Values{"file": {"0"}, "folded": {"true"}})
	r = f.get(t, "")
	mustLack(t, "collapsed page", r.text, `class="diff`, `<span class="label">`)
	mustContain(t, "collapsed page", r.text, `title="Expand">▶</button>`)

	f.expandAll(t)
	r = f.get(t, "")
	mustContain(t, "expanded page", r.text,
		// file rows: status letter, path, counts (R1)
		`<span class="status">M</span> <span class="path">greet.go</span>`, `<span class="counts"> · 2/2 · +2 −2</span>`,
		`<span class="status">A</span> <span class="path">greet_test.go</span>`, `<span class="counts"> · +2</span>`,
		`<span class="status">R</span> <span class="path">notes.txt → README.md</span>`,
		`<span class="status">D</span> <span class="path">TODO.txt</span>`, `<span class="counts"> · −1</span>`,
		// hunk rows: labels from the anchors (R2), their own counts
		`<span class="label">@@ func Hello(name string) string {</span>`,
		`<span class="label">@@ func Bye(name string) string {</span>`,
		// glyphs: unfolded and selected (R4)
		`title="Fold">▼</button>`, `title="Deselect">✓</button>`,
		// gutters: old numbers on removed lines, new numbers on added lines, tints (R3)
		// in two columns, old then new; a context line has both; removed lines marked − (U+2212)
		`<tr class="del"><td class="num old">7</td><td class="num new"></td><td class="mark">−</td><td>	return fmt.Sprintf("Hello, %s", name)</td></tr>`,
		`<tr class="add"><td class="num old"></td><td class="num new">7</td><td class="mark">+</td><td>	return fmt.Sprintf("Hello, %s!", name)</td></tr>`,
		`<tr class="del"><td class="num old">12</td><td class="num new"></td><td class="mark">−</td>`,
		`<tr class="add"><td class="num old"></td><td class="num new">2</td><td class="mark">+</td><td>// TODO: test Hello</td></tr>`,
		`<tr class="del"><td class="num old">1</td><td class="num new"></td><td class="mark">−</td><td>- greet everyone</td></tr>`,
		// the Move matched only by folding the em dash (M8), and says so
		`<span class="tag fuzzy" title="Matched while normalizing typographic punctuation">· fuzzy</span>`,
		// where a hunk is (R11), as authored
		`id="row-1-2" title="greet.go:12"`,
	)
	if n := strings.Count(r.text, `<li class="row hunk`); n != 2 {
		t.Errorf("%d hunk rows, want 2", n)
	}
}

// Deselecting a hunk is a form the page turns into a session call; the page comes back
// with the header, the file row and the primary action recounted (R4–R6).
func TestDeselectRecountsHeader(t *testing.T) {
	f := newFixture(t, PageOptions{})
	f.expandAll(t)
	r := f.post(t, "/deselect", form("1", "2"))
	if r.status != http.StatusSeeOther || r.location != "./?t="+f.token+"#row-1-2" {
		t.Fatalf("deselect: status %d, location %q; want 303 back to the row", r.status, r.location)
	}
	r = f.get(t, "")
	if got, want := header(t, r), "ApplyPatch · 4 files · 4/5 changes · +4 −3"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	if got, want := primary(t, r), "Apply 4 changes in 4 files"; got != want {
		t.Errorf("primary %q, want %q", got, want)
	}
	mustContain(t, "page", r.text,
		`title="Deselect">◐</button>`, `<span class="counts"> · 1/2 · +1 −1</span>`,
		`<li class="row hunk dim" id="row-1-2"`, `action="select?t=`)

	f.mustPost(t, "/deselect", form("0", "")) // the whole patch
	r = f.get(t, "")
	if got, want := header(t, r), "ApplyPatch · 4 files · 0/5 changes · +0 −0"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	if got := primary(t, r); got != "Reject patch" {
		t.Errorf("primary %q, want Reject patch", got)
	}
	mustLack(t, "page with nothing selected", r.text, `id="reject-all"`)
}

// Feedback is multi-line text on a hunk, a file or the whole patch; on a hunk it
// deselects the hunk, and the header counts it (R5–R7).
func TestFeedback(t *testing.T) {
	f := newFixture(t, PageOptions{})
	f.expandAll(t)
	f.mustPost(t, "/feedback", form("1", "2", "text", "Keep \"Bye\".\r\nCallers match on it."))
	r := f.get(t, "")
	if got, want := header(t, r), "ApplyPatch · 4 files · 4/5 changes · +4 −3 · 1 comment"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	if got, want := primary(t, r), "Apply 4 changes in 4 files · send 1 comment"; got != want {
		t.Errorf("primary %q, want %q", got, want)
	}
	mustContain(t, "page", r.text, "<div class=\"feedback\">✎ Keep \"Bye\".\nCallers match on it.</div>",
		`<li class="row hunk dim" id="row-1-2"`, `<span class="tag" title="Has feedback">✎</span>`)

	f.mustPost(t, "/feedback", form("0", "", "text", "Also add a test."))
	r = f.get(t, "")
	mustContain(t, "page", r.text, `<div class="feedback" id="whole-feedback">✎ Also add a test.</div>`)
	if got, want := header(t, r), "ApplyPatch · 4 files · 4/5 changes · +4 −3 · 2 comments"; got != want {
		t.Errorf("whole-patch feedback leaves selection alone: header %q, want %q", got, want)
	}

	f.mustPost(t, "/feedback", form("1", "2", "text", "  \r\n ")) // blank text removes the feedback
	if got, want := header(t, f.get(t, "")), "ApplyPatch · 4 files · 4/5 changes · +4 −3 · 1 comment"; got != want {
		t.Errorf("blank feedback: header %q, want %q", got, want)
	}
	f.mustPost(t, "/clear-feedback", form("0", ""))
	mustLack(t, "page after clearing", f.get(t, "").text, `id="whole-feedback"`)
}

// Selecting a hunk that carries feedback asks first, as a form; only a yes selects it
// and clears the feedback (R7).
func TestReselectAsksToConfirm(t *testing.T) {
	f := newFixture(t, PageOptions{})
	f.expandAll(t)
	f.mustPost(t, "/feedback", form("1", "2", "text", "Keep Bye."))
	r := f.post(t, "/select", form("1", "2"))
	if r.status != http.StatusConflict {
		t.Fatalf("select with feedback: status %d, want 409", r.status)
	}
	mustContain(t, "confirmation", r.text, `id="confirm"`, "Reselect and clear its feedback?",
		`<input type="hidden" name="file" value="1"><input type="hidden" name="hunk" value="2"><input type="hidden" name="confirm" value="yes">`)
	if got := header(t, r); !strings.HasSuffix(got, "· 1 comment") {
		t.Errorf("asking changed the review: %q", got)
	}
	f.mustPost(t, "/select", form("1", "2", "confirm", "yes"))
	r = f.get(t, "")
	if got, want := header(t, r), "ApplyPatch · 4 files · 5/5 changes · +5 −4"; got != want {
		t.Errorf("after yes: header %q, want %q", got, want)
	}
	mustLack(t, "page", r.text, "Keep Bye.")
}

var proposedRe = regexp.MustCompile(`name="proposed" value="([0-9a-f]{64})"`)

// openEditor opens the revision editor of a target and returns the page and the digest
// of the result it proposes.
func (f *fixture) openEditor(t *testing.T, file, hunk string) (response, string) {
	t.Helper()
	r := f.get(t, "edit="+file+"&hunk="+hunk)
	m := proposedRe.FindStringSubmatch(r.raw)
	if r.status != http.StatusOK || m == nil {
		t.Fatalf("editor of %s/%s: status %d, %s", file, hunk, r.status, problem(r))
	}
	return r, m[1]
}

// A revision shows the baseline and the proposed result, adopts the edited text (line
// endings as the browser sends them) and marks the rows edited; submitting writes it and
// tells the model it is authoritative (R8, R9).
func TestRevise(t *testing.T) {
	f := newFixture(t, PageOptions{})
	f.expandAll(t)
	r, proposed := f.openEditor(t, "1", "2")
	mustContain(t, "editor", r.text, "Revise greet.go · line 12",
		"<pre>\n"+workspaceFiles["greet.go"]+"</pre>",
		`spellcheck="false">`+"\n"+strings.NewReplacer("Hello, %s", "Hello, %s!", "Bye, %s", "Goodbye, %s.").Replace(workspaceFiles["greet.go"])+"</textarea>")
	if f.s.View().Selected != 5 {
		t.Fatal("opening the editor changed the selection")
	}
	edited := strings.Replace(workspaceFiles["greet.go"], `"Bye, %s"`, `"See you, %s"`, 1)
	f.mustPost(t, "/revise", form("1", "", "text", strings.ReplaceAll(edited, "\n", "\r\n"), "proposed", proposed))
	r = f.get(t, "")
	mustContain(t, "page", r.text, `<span class="tag edited">· edited</span>`, `See you, %s`)

	res := f.post(t, "/submit", nil)
	mustContain(t, "settled page", res.text, "Applied patch: 4 changes (1 revised by the user during review)",
		"User edited during review (authoritative): greet.go (whole file revised)")
	if got := snapshot(t, f.dir)["greet.go"]; got != edited {
		t.Errorf("greet.go:\n%s\nwant the edited text:\n%s", got, edited)
	}
}

// Revisions the session refuses are shown, and change nothing: an empty text, a text
// computed from a selection that changed meanwhile, a pure rename (R8).
func TestReviseRefusals(t *testing.T) {
	f := newFixture(t, PageOptions{})
	_, proposed := f.openEditor(t, "1", "")
	r := f.post(t, "/revise", form("1", "", "text", "\r\n", "proposed", proposed))
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(problem(r), "revision refused") {
		t.Errorf("empty revision: status %d, %q", r.status, problem(r))
	}
	mustContain(t, "editor after a refusal", r.text, `id="editor"`) // the person can fix the text

	f.mustPost(t, "/deselect", form("1", "2"))
	r = f.post(t, "/revise", form("1", "", "text", "package greet\n", "proposed", proposed))
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(problem(r), "revision discarded") {
		t.Errorf("stale revision: status %d, %q", r.status, problem(r))
	}
	if got := f.s.View(); got.Selected != 4 {
		t.Errorf("a refused revision changed the review: %d selected", got.Selected)
	}
	mustLack(t, "page", f.get(t, "").text, "· edited")

	f.mustPost(t, "/deselect", form("1", "1"))
	r = f.get(t, "edit=1")
	if !strings.Contains(problem(r), "Nothing to compare") {
		t.Errorf("editor of a file with nothing selected: %q", problem(r))
	}
}

// Adopting a revision of an Add that carries feedback asks first and keeps the edited
// text in the form, so answering yes adopts exactly it (R7, R8).
func TestReviseAddAsksBeforeClearingFeedback(t *testing.T) {
	f := newFixture(t, PageOptions{})
	f.mustPost(t, "/feedback", form("2", "", "text", "Write a real test."))
	_, proposed := f.openEditor(t, "2", "")
	text := "package greet\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {}\n"
	r := f.post(t, "/revise", form("2", "", "text", text, "proposed", proposed))
	if r.status != http.StatusConflict {
		t.Fatalf("status %d, want 409: %s", r.status, problem(r))
	}
	mustContain(t, "confirmation", r.text, "Adopt the revision and clear its feedback?", `name="confirm" value="yes"`,
		`spellcheck="false">`+"\n"+text+"</textarea>")
	f.mustPost(t, "/revise", form("2", "", "text", text, "proposed", proposed, "confirm", "yes"))
	r = f.get(t, "")
	if got, want := header(t, r), "ApplyPatch · 4 files · 5/5 changes · +8 −4"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	f.post(t, "/submit", nil)
	if got := snapshot(t, f.dir)["greet_test.go"]; got != text {
		t.Errorf("greet_test.go = %q, want %q", got, text)
	}
}

// Submitting writes the selected changes and answers with the settled page: the
// model-visible result. The settled review refuses further changes (R10, S2).
func TestSubmitWritesFiles(t *testing.T) {
	f := newFixture(t, PageOptions{})
	f.mustPost(t, "/deselect", form("1", "2"))
	r := f.post(t, "/submit", nil)
	if r.status != http.StatusOK {
		t.Fatalf("submit: status %d, %s", r.status, problem(r))
	}
	want := "Applied patch: 4 changes\nApplied: greet.go hunk 1\nRejected: greet.go hunk 2\nApplied: greet_test.go\n" +
		"Applied: notes.txt -> README.md\nFuzzy: notes.txt matched while normalizing typographic punctuation\nApplied: TODO.txt"
	mustContain(t, "settled page", r.text, `<pre id="result-text">`+"\n"+want+"</pre>", `data-state="settled"`)
	mustLack(t, "settled page", r.text, `id="primary"`)
	files := snapshot(t, f.dir)
	wantFiles := map[string]string{
		"greet.go":      strings.Replace(workspaceFiles["greet.go"], "Hello, %s", "Hello, %s!", 1),
		"greet_test.go": "package greet\n// TODO: test Hello\n",
		"README.md":     "# greet\n",
	}
	for name, content := range wantFiles {
		if files[name] != content {
			t.Errorf("%s = %q, want %q", name, files[name], content)
		}
	}
	if _, ok := files["TODO.txt"]; ok || len(files) != 3 {
		t.Errorf("files after submit: %v", files)
	}
	if r := f.post(t, "/deselect", form("1", "1")); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text, want) {
		t.Errorf("a request after settling: status %d, want 422 and the page showing the result", r.status)
	}
}

// Rejecting all writes nothing and settles with the error result (R10, S4).
func TestRejectWritesNothing(t *testing.T) {
	f := newFixture(t, PageOptions{})
	before := snapshot(t, f.dir)
	r := f.post(t, "/reject", nil)
	mustContain(t, "settled page", r.text, `<pre id="result-text">`+"\nError: Patch rejected</pre>", "nothing was written")
	after := snapshot(t, f.dir)
	if len(after) != len(before) {
		t.Fatalf("files %v, want %v", after, before)
	}
	for name, content := range before {
		if after[name] != content {
			t.Errorf("%s changed", name)
		}
	}
}

// A file changed on disk after the review began is a conflict: nothing is written, the
// review stays open and the page says what to do, naming the path as authored (X7, F5).
func TestConflictKeepsReviewOpen(t *testing.T) {
	f := newFixture(t, PageOptions{})
	changed := workspaceFiles["greet.go"] + "// changed by someone else\n"
	if err := os.WriteFile(filepath.Join(f.dir, "greet.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := f.post(t, "/submit", nil); r.status != http.StatusSeeOther {
		t.Fatalf("submit with a stale file: status %d, want 303 back to the review", r.status)
	}
	r := f.get(t, "")
	mustContain(t, "page", r.text, `id="conflict"`, "greet.go", hintStale)
	mustLack(t, "page", r.text, f.dir)
	files := snapshot(t, f.dir)
	if files["greet.go"] != changed || files["TODO.txt"] == "" || files["README.md"] != "" {
		t.Errorf("a conflict wrote something: %v", files)
	}
	f.mustPost(t, "/deselect", form("1", ""))
	if r := f.post(t, "/submit", nil); !strings.Contains(r.text, "Applied patch: 3 changes") {
		t.Errorf("after deselecting the stale file: %s", problem(r))
	}
}

// No page, in any state, shows a host path: the workspace directory never appears, only
// paths as authored (F5).
func TestNoHostPathsInHTML(t *testing.T) {
	f := newFixture(t, PageOptions{})
	real, err := filepath.EvalSymlinks(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	var pages []response
	pages = append(pages, f.get(t, ""))
	f.expandAll(t)
	pages = append(pages, f.get(t, ""))
	for _, file := range []string{"1", "2", "3", "4"} {
		pages = append(pages, f.get(t, "edit="+file))
	}
	pages = append(pages, f.post(t, "/revise", form("1", "", "text", "x", "proposed", "stale")))
	pages = append(pages, f.post(t, "/select", form("9", "")))
	os.Remove(filepath.Join(f.dir, "TODO.txt")) // gone before the commit: a failure that names it
	f.post(t, "/submit", nil)
	pages = append(pages, f.get(t, ""))
	f.mustPost(t, "/deselect", form("4", ""))
	pages = append(pages, f.post(t, "/submit", nil))
	for i, p := range pages {
		for _, host := range []string{f.dir, real, os.TempDir()} {
			if strings.Contains(p.raw, host) || strings.Contains(p.text, host) {
				t.Errorf("page %d shows the host path %s:\n%s", i, host, p.text)
			}
		}
	}
	mustContain(t, "conflict page", pages[len(pages)-2].text, `id="conflict"`, "TODO.txt")
	mustContain(t, "settled page", pages[len(pages)-1].text, "Applied patch: 4 changes")
}
