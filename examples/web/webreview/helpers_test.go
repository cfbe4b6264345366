package webreview

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// workspaceFiles is the workspace the tests review a patch of.
var workspaceFiles = map[string]string{
	"greet.go": `package greet

import "fmt"

// Hello returns a greeting for name.
func Hello(name string) string {
	return fmt.Sprintf("Hello, %s", name)
}

// Bye returns a farewell for name.
func Bye(name string) string {
	return fmt.Sprintf("Bye, %s", name)
}
`,
	"notes.txt": "Old notes — to be replaced.\n",
	"TODO.txt":  "- greet everyone\n",
}

// payload has every kind of operation: an Update with two hunks, an Add, a Move whose
// hunk matches only after folding the em dash (fuzzy), and a Delete: 5 changes in 4 files.
const payload = `*** Begin Patch
*** Update File: greet.go
@@ func Hello(name string) string {
-	return fmt.Sprintf("Hello, %s", name)
+	return fmt.Sprintf("Hello, %s!", name)
@@ func Bye(name string) string {
-	return fmt.Sprintf("Bye, %s", name)
+	return fmt.Sprintf("Goodbye, %s.", name)
*** Add File: greet_test.go
+package greet
+// TODO: test Hello
*** Update File: notes.txt
*** Move to: README.md
@@
-Old notes - to be replaced.
+# greet
*** Delete File: TODO.txt
*** End Patch
`

// fixture is a review of payload in a workspace on disk, served by a Page.
type fixture struct {
	dir   string
	s     *applypatch.Session
	page  *Page
	token string
	cards []applypatch.Card
}

// newFixture writes the workspace to a temporary directory and opens a review of the
// payload as the command does: resolved on the operating system's filesystem, read and
// written through an os.Root.
func newFixture(t *testing.T, opts PageOptions) *fixture {
	t.Helper()
	dir := t.TempDir()
	for name, content := range workspaceFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{dir: dir, token: NewToken()}
	f.s = openSession(t, dir)
	publish := opts.Publish
	opts.Publish = func(c applypatch.Card) {
		f.cards = append(f.cards, c)
		if publish != nil {
			publish(c)
		}
	}
	f.page = NewPage(f.s, f.token, opts)
	return f
}

// openSession resolves the payload against dir and opens its review.
func openSession(t *testing.T, dir string) *applypatch.Session {
	t.Helper()
	confined, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { confined.Close() })
	p, err := applypatch.Parse(payload)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := applypatch.Resolve(context.Background(), afero.NewOsFs(), p,
		&applypatch.Options{Workspace: dir, WorkspaceFs: confined, Mode: applypatch.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	return applypatch.NewSession(pr)
}

// response is an answer of the page with its body as text (entities decoded).
type response struct {
	status   int
	location string
	raw      string
	text     string
}

func (f *fixture) do(req *http.Request) response {
	rec := httptest.NewRecorder()
	f.page.ServeHTTP(rec, req)
	raw := rec.Body.String()
	return response{status: rec.Code, location: rec.Header().Get("Location"), raw: raw, text: html.UnescapeString(raw)}
}

// get requests the page with the token and the extra query.
func (f *fixture) get(t *testing.T, query string) response {
	t.Helper()
	target := "/?" + TokenParam + "=" + f.token
	if query != "" {
		target += "&" + query
	}
	return f.do(httptest.NewRequest(http.MethodGet, target, nil))
}

// post sends a form to path with the token in the URL and in the form, as the page's
// forms do.
func (f *fixture) post(t *testing.T, path string, form url.Values) response {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set(TokenParam, f.token)
	req := httptest.NewRequest(http.MethodPost, path+"?"+TokenParam+"="+f.token, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return f.do(req)
}

// mustPost posts and requires the redirect back to the page.
func (f *fixture) mustPost(t *testing.T, path string, form url.Values) {
	t.Helper()
	if r := f.post(t, path, form); r.status != http.StatusSeeOther {
		t.Fatalf("POST %s %v: status %d, want 303; page says:\n%s", path, form, r.status, problem(r))
	}
}

// expandAll unfolds every file.
func (f *fixture) expandAll(t *testing.T) {
	t.Helper()
	f.mustPost(t, "/fold", url.Values{"file": {"0"}, "folded": {"false"}})
}

// form is a target form.
func form(file, hunk string, kv ...string) url.Values {
	v := url.Values{"file": {file}, "hunk": {hunk}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

var problemRe = regexp.MustCompile(`(?s)id="(?:problem|conflict)"[^>]*>(.*?)</div>`)

// problem returns the refusal a page shows, for failure messages.
func problem(r response) string {
	if m := problemRe.FindStringSubmatch(r.text); m != nil {
		return m[1]
	}
	return r.text[:min(len(r.text), 400)]
}

var headerRe = regexp.MustCompile(`<h1 id="header">([^<]*)</h1>`)

// header returns the header line of a page.
func header(t *testing.T, r response) string {
	t.Helper()
	m := headerRe.FindStringSubmatch(r.raw)
	if m == nil {
		t.Fatalf("no header in page:\n%s", r.text)
	}
	return html.UnescapeString(m[1])
}

var primaryRe = regexp.MustCompile(`id="primary">([^<]*)<`)

// primary returns the primary action's label.
func primary(t *testing.T, r response) string {
	t.Helper()
	m := primaryRe.FindStringSubmatch(r.raw)
	if m == nil {
		t.Fatalf("no primary action in page:\n%s", r.text)
	}
	return html.UnescapeString(m[1])
}

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mustContain fails unless text has every one of wants.
func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

// mustLack fails if text has any of bads.
func mustLack(t *testing.T, what, text string, bads ...string) {
	t.Helper()
	for _, b := range bads {
		if strings.Contains(text, b) {
			t.Errorf("%s has %q", what, b)
		}
	}
}
