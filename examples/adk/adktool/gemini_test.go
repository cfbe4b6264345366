package adktool_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"
)

// fakeGemini answers as the Gemini API's generateContent does, from a script: while the
// last content of a request holds no function response it calls apply_patch with patch;
// once it does, it replies with a final text. It keeps every request it got.
type fakeGemini struct {
	t     *testing.T
	patch string

	mu       sync.Mutex
	requests [][]*genai.Content
}

// newFakeGemini starts the server; it stops when the test ends.
func newFakeGemini(t *testing.T, patch string) (*fakeGemini, *httptest.Server) {
	f := &fakeGemini{t: t, patch: patch}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

// serve answers one generateContent request.
func (f *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, ":generateContent") {
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, "not scripted", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req struct {
		Contents []*genai.Content `json:"contents"`
	}
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		f.t.Errorf("reading the request: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req.Contents)
	f.mu.Unlock()

	part := map[string]any{"functionCall": map[string]any{"name": "apply_patch", "args": map[string]any{"patchText": f.patch}}}
	if last := lastResponse(req.Contents); last != nil {
		part = map[string]any{"text": "done"}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
		}},
		"modelVersion": "gemini-test",
	})
}

// lastResponse is the function response in the last content of a request, if any.
func lastResponse(contents []*genai.Content) *genai.FunctionResponse {
	if len(contents) == 0 {
		return nil
	}
	for _, p := range contents[len(contents)-1].Parts {
		if p.FunctionResponse != nil {
			return p.FunctionResponse
		}
	}
	return nil
}

// sent returns the function response the model was last sent.
func (f *fakeGemini) sent() *genai.FunctionResponse {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		return nil
	}
	return lastResponse(f.requests[len(f.requests)-1])
}
