package webreview

import (
	"crypto/rand"
	"crypto/subtle"
	"net/http"
)

// TokenParam is the name of the token in the page's URL query and in every form.
const TokenParam = "t"

// NewToken returns a fresh token with 256 random bits from crypto/rand, as URL-safe text.
func NewToken() string { return rand.Text() + rand.Text() }

// guard refuses, with 403 Forbidden, every request whose URL does not carry the token, and
// every POST whose form does not carry it too or that a browser marks as sent by another
// origin: other pages open in the browser can neither read the page nor act on it. It also
// sets the headers that keep the page out of frames, caches and referrers.
func guard(token string, next http.Handler) http.Handler {
	forgery := http.NewCrossOriginProtection()
	forgery.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden: the form was sent from another site", http.StatusForbidden)
	}))
	checked := forgery.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameToken(r.URL.Query().Get(TokenParam), token) {
			http.Error(w, "forbidden: this review page needs the link with its token", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && !sameToken(r.PostFormValue(TokenParam), token) {
			http.Error(w, "forbidden: the form did not come from this review page", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		checked.ServeHTTP(w, r)
	})
}

// sameToken compares in constant time, so the token cannot be guessed byte by byte.
func sameToken(got, want string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
