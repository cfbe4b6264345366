package webreview

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/applypatch/applypatch"
)

// PageOptions configure a [Page].
type PageOptions struct {
	// Card configures the collaboration card: its byte budgets and the parent-active
	// warning (C1, C2).
	Card applypatch.CardOptions
	// Publish, when set, receives the collaboration card whenever its content changes
	// (C4): once when the page is created, then after each request that changed what the
	// card shows. Folding never republishes. It is called with the page's lock held, in
	// order, and must not call back into the page.
	Publish func(applypatch.Card)
}

// A Page is the HTTP handler of one review: it renders the session as HTML and turns
// each form the person sends into a call of a session method. It keeps no review state of
// its own: rows, counts, labels, fold state, selection and feedback all come from the
// session on every request. What it does keep is the token and what it last published.
//
// Every request must carry the token in its URL query ([TokenParam]), and every POST in its
// form too, else it gets 403 Forbidden. Changes answer with a redirect back to the page
// (POST-redirect-GET); a refused request is answered with the page showing why (or, for a
// request that would clear feedback, a confirmation form); a request that settles the
// review is answered with the settled page itself, which shows the model-visible result.
type Page struct {
	s     *applypatch.Session
	token string
	opts  PageOptions
	h     http.Handler

	mu        sync.Mutex
	published string // hash of the last card published
	count     int    // cards published
}

// NewPage returns the page of a session, guarded by token (see [NewToken]).
func NewPage(s *applypatch.Session, token string, opts PageOptions) *Page {
	p := &Page{s: s, token: token, opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", p.show)
	for path, act := range map[string]func(*http.Request, applypatch.Target) error{
		"select":         p.selectTarget,
		"deselect":       p.deselect,
		"fold":           p.fold,
		"feedback":       p.feedback,
		"clear-feedback": p.clearFeedback,
	} {
		mux.HandleFunc("POST /"+path, p.targetAction(act))
	}
	mux.HandleFunc("POST /revise", p.revise)
	mux.HandleFunc("POST /submit", p.settling(func(r *http.Request) error { _, err := p.s.Submit(detached(r)); return err }))
	mux.HandleFunc("POST /reject", p.settling(func(*http.Request) error { return p.s.Reject() }))
	mux.HandleFunc("POST /card-feedback", p.settling(func(r *http.Request) error {
		_, err := p.s.CardFeedback(detached(r), r.PostFormValue("text"))
		return err
	}))
	p.h = guard(token, mux)
	p.publish()
	return p
}

// detached is the context of a submission: a person closing the tab while the patch is
// written must not cut the transaction short.
func detached(r *http.Request) context.Context { return context.WithoutCancel(r.Context()) }

// ServeHTTP serves the page, then republishes the card if its content changed.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.h.ServeHTTP(w, r)
	p.publish()
}

// Published returns the hash of the card last published and how many cards were published.
func (p *Page) Published() (hash string, count int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.published, p.count
}

// publish hands the card to Publish when its content changed (C4).
func (p *Page) publish() {
	card := p.s.Card(p.opts.Card)
	p.mu.Lock()
	defer p.mu.Unlock()
	if card.Hash == p.published {
		return
	}
	p.published, p.count = card.Hash, p.count+1
	if p.opts.Publish != nil {
		p.opts.Publish(card)
	}
}

// show renders the page; with ?edit=FILE[&hunk=N] it opens the revision editor.
func (p *Page) show(w http.ResponseWriter, r *http.Request) {
	v := &view{}
	if r.URL.Query().Has("edit") {
		t, err := target(r.URL.Query().Get("edit"), r.URL.Query().Get("hunk"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.openEditor(v, t)
	}
	p.render(w, http.StatusOK, v)
}

// openEditor shows a revision of t: the session opens it, the page reads its two sides
// and closes it again. The revision is opened anew when the edit comes back, and adopted
// only if the result it started from is still what the selection proposes.
func (p *Page) openEditor(v *view, t applypatch.Target) {
	rev, err := p.s.Revise(t)
	if err != nil {
		v.Problem = err.Error()
		return
	}
	defer rev.Cancel()
	v.Edit = &editView{Target: rev.Target, Path: rev.Path, Line: rev.Line, Baseline: rev.Baseline,
		Text: rev.Proposed, Proposed: digest(rev.Proposed)}
}

// revise adopts an edited result (R8).
func (p *Page) revise(w http.ResponseWriter, r *http.Request) {
	t, err := formTarget(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	text := strings.ReplaceAll(r.PostFormValue("text"), "\r\n", "\n")
	rev, err := p.s.Revise(t)
	if err != nil {
		p.refused(w, &view{}, err)
		return
	}
	defer rev.Cancel()
	if digest(rev.Proposed) != r.PostFormValue("proposed") {
		p.refused(w, &view{}, &applypatch.ReviewError{Reason: applypatch.ReviewRefused, Target: rev.Target,
			Detail: "this file's selection changed while the revision was open, revision discarded"})
		return
	}
	if text == strings.ReplaceAll(rev.Proposed, "\r\n", "\n") { // handed back unchanged: a quiet no-op
		p.back(w, t)
		return
	}
	err = rev.Adopt(text, confirmed(r))
	if err == nil {
		p.back(w, t)
		return
	}
	v := &view{Edit: &editView{Target: rev.Target, Path: rev.Path, Line: rev.Line, Baseline: rev.Baseline,
		Text: text, Proposed: digest(rev.Proposed)}}
	var re *applypatch.ReviewError
	if errors.As(err, &re) && re.Reason == applypatch.ReviewNeedsConfirm {
		v.Edit.Confirm = re.Prompt
		p.render(w, http.StatusConflict, v)
		return
	}
	p.refused(w, v, err)
}

// targetAction runs act on the form's target and answers.
func (p *Page) targetAction(act func(*http.Request, applypatch.Target) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t, err := formTarget(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := act(r, t); err != nil {
			p.refused(w, &view{}, err)
			return
		}
		p.back(w, t)
	}
}

func (p *Page) selectTarget(r *http.Request, t applypatch.Target) error {
	return p.s.Select(t, true, confirmed(r))
}

func (p *Page) deselect(_ *http.Request, t applypatch.Target) error { return p.s.Select(t, false, nil) }

func (p *Page) fold(r *http.Request, t applypatch.Target) error {
	return p.s.Fold(t, r.PostFormValue("folded") == "true")
}

func (p *Page) feedback(r *http.Request, t applypatch.Target) error {
	return p.s.SetFeedback(t, r.PostFormValue("text"))
}

func (p *Page) clearFeedback(_ *http.Request, t applypatch.Target) error {
	return p.s.SetFeedback(t, "")
}

// settling runs a request that may settle the review: submit, reject, card feedback. A
// settled review is answered with the settled page at once: the review's server may stop
// right after, so a redirect could find nobody. A submission that failed and left the
// review open shows the conflict on the page.
func (p *Page) settling(act func(*http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := act(r)
		switch {
		case p.s.View().State == applypatch.StateSettled:
			p.render(w, http.StatusOK, &view{})
		case errors.Is(err, &applypatch.ReviewError{}):
			p.refused(w, &view{}, err)
		default: // applied meanwhile, or a conflict the page shows from the session
			p.back(w, applypatch.Target{})
		}
	}
}

// refused answers a request the session refused: a confirmation form when the request
// clears feedback, else the page with the reason.
func (p *Page) refused(w http.ResponseWriter, v *view, err error) {
	var re *applypatch.ReviewError
	if errors.As(err, &re) && re.Reason == applypatch.ReviewNeedsConfirm {
		v.Confirm = &confirmView{Prompt: re.Prompt, Target: re.Target}
		p.render(w, http.StatusConflict, v)
		return
	}
	v.Problem = err.Error()
	p.render(w, http.StatusUnprocessableEntity, v)
}

// back redirects to the page, scrolled to the target's row. The address is relative, so
// a page mounted under a prefix (with http.StripPrefix) comes back to itself.
func (p *Page) back(w http.ResponseWriter, t applypatch.Target) {
	to := "./?" + TokenParam + "=" + url.QueryEscape(p.token)
	if t != (applypatch.Target{}) {
		to += "#" + rowID(t)
	}
	w.Header().Set("Location", to)
	w.WriteHeader(http.StatusSeeOther)
}

// render fills the view from one snapshot of the session and writes the page.
func (p *Page) render(w http.ResponseWriter, status int, v *view) {
	sv := p.s.View()
	v.Token, v.Nonce = p.token, rand.Text()
	v.State = string(sv.State)
	v.Header, v.Primary = sv.Header, sv.Action
	v.Rows = p.rowsView(sv.Rows)
	v.Feedback = sv.Feedback
	v.Conflict = conflictOf(sv.Conflict)
	v.Result = resultOf(p.s)
	card := p.s.Card(p.opts.Card)
	published, count := p.Published()
	if card.Hash != published {
		count++ // this card is published once the request ends
	}
	v.Card = cardView{Card: card, Short: shortHash(card.Hash), Published: count, Sends: p.opts.Publish != nil}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, v); err != nil {
		http.Error(w, "the page could not be rendered: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+v.Nonce+"'; script-src 'nonce-"+v.Nonce+
		"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// rowsView decorates the session's rows, each hunk row with where it is in its file.
func (p *Page) rowsView(snapshot []applypatch.Row) []rowView {
	rows := rowsView(snapshot)
	for i := range rows {
		if rows[i].Target.Hunk > 0 {
			if loc, err := p.s.Visit(rows[i].Target); err == nil {
				rows[i].Where = loc.Path + ":" + strconv.Itoa(loc.Line) // never loc.Name: a host path
			}
		}
	}
	return rows
}

// confirmed is the answer a form gives to a request that clears feedback.
func confirmed(r *http.Request) func(string) bool {
	if r.PostFormValue("confirm") == "yes" {
		return applypatch.DiscardFeedback
	}
	return nil
}

// formTarget reads a target from a form's file and hunk fields.
func formTarget(r *http.Request) (applypatch.Target, error) {
	return target(r.PostFormValue("file"), r.PostFormValue("hunk"))
}

// target reads a target: file and hunk numbers, either may be empty for 0.
func target(file, hunk string) (applypatch.Target, error) {
	var t applypatch.Target
	for _, f := range []struct {
		text string
		n    *int
	}{{file, &t.File}, {hunk, &t.Hunk}} {
		if f.text == "" {
			continue
		}
		n, err := strconv.Atoi(f.text)
		if err != nil || n < 0 {
			return t, errors.New("bad request: file and hunk are numbers from 1")
		}
		*f.n = n
	}
	return t, nil
}

// digest identifies a revision's proposed result.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"rowID": rowID,
	"lines": lines,
	"mark":  mark,
	"tint": func(k applypatch.LineKind) string {
		return map[applypatch.LineKind]string{applypatch.LineAdd: "add", applypatch.LineRemove: "del"}[k]
	},
}).Parse(pageHTML))

// mark is a diff line's marker as the page shows it: a minus sign (U+2212) rather than
// a hyphen, as in every count on the page.
func mark(k applypatch.LineKind) string {
	if k == applypatch.LineRemove {
		return "−"
	}
	return string(rune(k))
}
