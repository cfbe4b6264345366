package webreview

import (
	"net/http"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
)

// The card panel shows the selected diff, the action label and a separate notice, and
// the card is published again only when its content changes: folding does not (C1, C4).
func TestCardRepublishesOnlyOnChange(t *testing.T) {
	f := newFixture(t, PageOptions{})
	if len(f.cards) != 1 {
		t.Fatalf("%d cards published at start, want 1", len(f.cards))
	}
	f.expandAll(t)
	f.mustPost(t, "/fold", form("1", "1", "folded", "true"))
	f.get(t, "")
	if len(f.cards) != 1 {
		t.Fatalf("folding published %d cards, want still 1", len(f.cards))
	}
	f.mustPost(t, "/deselect", form("1", "2"))
	if len(f.cards) != 2 {
		t.Fatalf("deselecting: %d cards published, want 2", len(f.cards))
	}
	card := f.cards[1]
	if card.Action != "Apply 4 changes in 4 files" || card.Hash == f.cards[0].Hash {
		t.Errorf("republished card: action %q, hash unchanged %v", card.Action, card.Hash == f.cards[0].Hash)
	}
	f.mustPost(t, "/deselect", form("1", "2")) // again: nothing changes, nothing is published
	r := f.get(t, "")
	if len(f.cards) != 2 {
		t.Errorf("a request that changed nothing published a card (%d)", len(f.cards))
	}
	mustContain(t, "card panel", r.text,
		`Sent 2 times, each time the selected changes changed · version <span class="mono" id="card-hash">`+card.Hash[:12]+`</span>`,
		`<h2>What a remote reviewer sees<span class="readonly">read-only</span></h2>`,
		`Their action reads: <span class="action-label" id="card-action">Apply 4 changes in 4 files</span>`,
		"<pre id=\"card-notice\">\nA read-only preview of the selected changes; the person reviewing the patch chooses and edits them.\nRejected: greet.go hunk 2</pre>",
		"+\treturn fmt.Sprintf(\"Hello, %s!\", name)", "*** Move to: README.md")
	mustLack(t, "card diff", card.Diff, "Goodbye")
	// The preview is read-only: the one Apply button is the review's own.
	if n := strings.Count(r.text, ">Apply 4 changes in 4 files</button>"); n != 1 {
		t.Errorf("%d Apply buttons, want 1 (the preview has none)", n)
	}
	mustLack(t, "card panel", r.text, `action="card-feedback`, "native review")
	if hash, n := f.page.Published(); hash != card.Hash || n != 2 {
		t.Errorf("Published() = %s, %d", hash, n)
	}
}

// The card's diff is cut to its byte budget with a last line pointing to the native
// review; the page shows the card as cut (C2).
func TestCardBudget(t *testing.T) {
	f := newFixture(t, PageOptions{Card: applypatch.CardOptions{DiffBytes: 120}})
	card := f.cards[0]
	const marker = "[truncated: the rest of the diff is in the full review]"
	if len(card.Diff) > 120 || !strings.HasSuffix(card.Diff, "\n"+marker) {
		t.Fatalf("diff of %d bytes:\n%s", len(card.Diff), card.Diff)
	}
	mustContain(t, "card panel", f.get(t, "").text, card.Diff+"</pre>")
}

// Feedback from the card is a whole-patch revision request: every change is deselected,
// nothing is written and the model is asked for a revision (C5, S4).
func TestCardFeedback(t *testing.T) {
	f := newFixture(t, PageOptions{})
	before := snapshot(t, f.dir)
	r := f.post(t, "/card-feedback", form("", "", "text", "Split this into two patches."))
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, problem(r))
	}
	mustContain(t, "settled page", r.text, "Patch revision requested\nFeedback (whole patch): Split this into two patches.\n",
		"Rejected: greet.go hunk 1", "Rejected: TODO.txt")
	if after := snapshot(t, f.dir); after["TODO.txt"] != before["TODO.txt"] || len(after) != len(before) {
		t.Errorf("card feedback wrote something: %v", after)
	}
	last := f.cards[len(f.cards)-1]
	if !strings.HasPrefix(last.Notice, "This review has settled: ApplyPatch: revision requested") || last.Action != "" {
		t.Errorf("the settled card was not published: %+v", last)
	}
}

// A page with nowhere to send the card says so, rather than counting sends that never
// happened (C4).
func TestCardNotSentWithoutPublish(t *testing.T) {
	f := newFixture(t, PageOptions{})
	f.page = NewPage(f.s, f.token, PageOptions{})
	r := f.get(t, "")
	mustContain(t, "card panel", r.text, "Not sent: this page has no remote reviewer to send it to · version")
	mustLack(t, "card panel", r.text, "Sent 1 time")
}
