package webreview_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/examples/web/webreview"
	"github.com/spf13/afero"
)

const patch = `*** Begin Patch
*** Update File: hello.txt
@@
-world
+there
*** End Patch`

// resolve resolves the patch against an in-memory workspace.
func resolve() (afero.Fs, *applypatch.Proposal) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/hello.txt", []byte("hello\nworld\n"), 0o644)
	p, err := applypatch.Parse(patch)
	if err != nil {
		panic(err)
	}
	pr, err := applypatch.Resolve(context.Background(), fsys, p, &applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeAsk})
	if err != nil {
		panic(err)
	}
	return fsys, pr
}

// The Reviewer serves the review on 127.0.0.1 and tells Ready the page's address. A
// person opens it in a browser; here a client presses the primary action instead.
func ExampleReviewer() {
	fsys, pr := resolve()
	rv := &webreview.Reviewer{Ready: func(page string) {
		u, _ := url.Parse(page)
		token := u.Query().Get(webreview.TokenParam)
		go func() {
			if resp, err := http.PostForm("http://"+u.Host+"/submit?t="+token, url.Values{"t": {token}}); err == nil {
				resp.Body.Close()
			}
		}()
	}}
	res, err := applypatch.Review(context.Background(), pr, rv)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	b, _ := afero.ReadFile(fsys, "/ws/hello.txt")
	fmt.Print(string(b))
	// Output:
	// Applied patch: 1 change
	// Applied: hello.txt hunk 1
	// hello
	// there
}

// A host with a web server of its own mounts the page of a session under a prefix; the
// page's links, forms and redirects are relative, so they stay under it.
func ExampleNewPage() {
	_, pr := resolve()
	s := applypatch.NewSession(pr)
	token := webreview.NewToken()
	mux := http.NewServeMux()
	mux.Handle("/review/", http.StripPrefix("/review", webreview.NewPage(s, token, webreview.PageOptions{})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(srv.URL + "/review/")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("without the token:", resp.StatusCode)
	resp, err = client.PostForm(srv.URL+"/review/deselect?t="+token, url.Values{"t": {token}, "file": {"1"}})
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("deselect:", resp.StatusCode, resp.Header.Get("Location")[:5])
	fmt.Println(s.View().Header)
	// Output:
	// without the token: 403
	// deselect: 303 ./?t=
	// ApplyPatch · 1 file · 0/1 change · +0 −0
}
