package webreview

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/applypatch/applypatch"
)

// The Reviewer serves the page on a loopback address with a token in its URL; the
// request that settles the review gets the settled page, then Review returns.
func TestReviewerServesOnLoopback(t *testing.T) {
	f := newFixture(t, PageOptions{})
	urls := make(chan string, 1)
	rv := &Reviewer{Ready: func(u string) { urls <- u }}
	reviewed := make(chan error, 1)
	go func() { reviewed <- rv.Review(context.Background(), f.s) }()

	var page string
	select {
	case page = <-urls:
	case err := <-reviewed:
		t.Fatalf("Review returned before serving: %v", err)
	}
	u, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() || u.Port() == "" || u.Port() == "0" {
		t.Fatalf("page served at %s, want a loopback address with a port", page)
	}
	token := u.Query().Get(TokenParam)
	if len(token) < 40 {
		t.Fatalf("token %q is too short", token)
	}
	base := "http://" + u.Host + "/"
	if code := getStatus(t, base); code != http.StatusForbidden {
		t.Errorf("GET without token over the network: %d, want 403", code)
	}
	if code := getStatus(t, page); code != http.StatusOK {
		t.Errorf("GET with token: %d, want 200", code)
	}
	resp, err := http.PostForm(base+"submit?"+TokenParam+"="+token, url.Values{TokenParam: {token}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Applied patch: 5 changes") {
		t.Errorf("submit answered %d:\n%s", resp.StatusCode, body)
	}
	select {
	case err := <-reviewed:
		if err != nil {
			t.Errorf("Review: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Review did not return after the review settled")
	}
	if _, err := http.Get(page); err == nil {
		t.Error("the page is still served after Review returned")
	}
	if res := f.s.View().Result; res == nil || res.Applied != 5 {
		t.Errorf("result %+v", res)
	}
}

// getStatus requests u and returns the status code.
func getStatus(t *testing.T, u string) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The page is for this machine only: a non-loopback address is refused, and the review
// settles with that error (nothing is written).
func TestReviewerRefusesOtherAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80", "localhost"} {
		f := newFixture(t, PageOptions{})
		res, err := f.s.Run(context.Background(), &Reviewer{Addr: addr})
		if err == nil || res.Status != applypatch.StatusError || !strings.Contains(err.Error(), "review page") {
			t.Errorf("Addr %q: result %+v, error %v; want the address refused", addr, res, err)
		}
	}
}

// Cancelling the review's context stops the page and aborts the review.
func TestReviewerStopsOnCancel(t *testing.T) {
	f := newFixture(t, PageOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	rv := &Reviewer{Ready: func(string) { cancel() }}
	res, err := f.s.Run(ctx, rv)
	if !errors.Is(err, applypatch.ErrAborted) || res.Text() != "Error: Patch review aborted" {
		t.Errorf("result %q, error %v; want the review aborted", res.Text(), err)
	}
}
