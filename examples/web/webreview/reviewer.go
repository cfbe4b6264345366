// Package webreview is an applypatch front end in a browser: a [Reviewer] that serves the
// live review of a patch as a local web page, with plain HTML forms and no framework.
//
// The page shows what the review model computes (the header, the file and hunk rows with
// their fold and selection glyphs, gutter line numbers and tints, feedback, revisions, the
// primary action) and sends every click to the session as a method call; it keeps no
// review state of its own. Beside the review it shows the collaboration card, the plain
// surface a remote guest would get.
//
// The page is for the person at this machine only: it listens on 127.0.0.1 at a random
// port, and every request must carry a random per-review token, so neither another user
// of the machine nor another page open in the browser can read or drive it.
package webreview

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/applypatch/applypatch"
)

// A Reviewer reviews each patch on a local web page (see the package doc). Its zero value
// is usable; set Ready to learn the page's address.
type Reviewer struct {
	// Addr is the address to listen on. It must be a loopback address; empty means
	// 127.0.0.1 on a port the system picks.
	Addr string
	// Ready, when set, is called with the page's URL, token included, once the page is
	// listening: print it, or open it in a browser.
	Ready func(url string)
	// Page configures the page: the collaboration card's budgets and where to publish it.
	Page PageOptions
}

// shutdownGrace bounds how long a settled review waits for the page's last answers (the
// settled page itself) to be written.
const shutdownGrace = 5 * time.Second

// Review serves the session's page until the session settles or ctx is cancelled. When
// the session settles, the request that settled it is answered with the settled page
// (it shows the model-visible result), and Review returns after that answer is written.
//
// [applypatch.Review] returns the result as soon as the session settles; a program that
// exits right after should wait for this method to return, so that the browser gets its
// last page (the command in this module shows how).
func (rv *Reviewer) Review(ctx context.Context, s *applypatch.Session) error {
	ln, err := listen(rv.Addr)
	if err != nil {
		return err
	}
	token := NewToken()
	srv := &http.Server{
		Handler:           NewPage(s, token, rv.Page),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if rv.Ready != nil {
		rv.Ready(PageURL(ln.Addr().String(), token))
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("review page: %w", err)
	}
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(grace); err != nil {
		srv.Close()
	}
	return ctx.Err()
}

// PageURL returns the URL of a page served at host (an address such as 127.0.0.1:8080)
// with its token.
func PageURL(host, token string) string {
	u := url.URL{Scheme: "http", Host: host, Path: "/", RawQuery: TokenParam + "=" + url.QueryEscape(token)}
	return u.String()
}

// listen listens on addr, which must be a loopback address; empty means 127.0.0.1 on a
// random port.
func listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("review page: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, errors.New("review page: the address must be a loopback IP such as 127.0.0.1: the page is for this machine only")
	}
	return net.Listen("tcp", addr)
}
