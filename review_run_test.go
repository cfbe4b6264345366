package applypatch

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/spf13/afero"
)

// R10: while host diagnostics run after the commit the review is inert (progress row,
// card without action or feedback, reject and remote feedback refused) and exactly one
// result arrives when they finish.
func TestSubmitDiagnosticsSettleOnce(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	opts := &Options{AfterCommit: func(context.Context, *Result) { close(started); <-release }}
	f := newFixtureOn(t, afero.NewMemMapFs(), twoFiles.files, twoFiles.payload, opts)
	results := make(chan *Result, 2)
	go func() {
		res, _ := Review(context.Background(), f.pr, ReviewerFunc(func(ctx context.Context, s *Session) error {
			f.s = s
			_, err := s.Submit(ctx)
			return err
		}))
		results <- res
	}()
	<-started
	s := f.s
	if s.View().State != StateSubmitting || s.Render() != "ApplyPatch · Applying patch and refreshing diagnostics..." {
		t.Errorf("state %s, render %q", s.View().State, s.Render())
	}
	if card := s.Card(CardOptions{}); card.Action != "" || card.Feedback || card.Notice != "ApplyPatch is being applied." {
		t.Errorf("card while applying: %+v", card)
	}
	wantReason(t, s.Reject(), reviewBusy)
	_, err := s.CardFeedback(context.Background(), "stop")
	wantReason(t, err, reviewBusy)
	wantReason(t, s.Select(Target{File: 1}, true, nil), reviewBusy)
	wantReason(t, s.Select(Target{File: 1}, false, nil), reviewBusy)
	select {
	case <-s.Done():
		t.Fatal("settled before diagnostics finished")
	default:
	}
	close(release)
	res := <-results
	if res.Status != StatusApplied || !res.Reviewed {
		t.Errorf("result %s", res.Text())
	}
	select {
	case extra := <-results:
		t.Errorf("a second result: %v", extra)
	default:
	}
}

// R10, X17: tearing the review down while the write's diagnostics run does not settle it
// as aborted, since the write completed: once the commit ends, the review settles with
// what it did, applied, and the model is never told "aborted" of a patch on disk.
func TestSubmitAbortedDuringDiagnostics(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	opts := &Options{AfterCommit: func(context.Context, *Result) { close(started); <-release }}
	f := newFixtureOn(t, afero.NewMemMapFs(), twoFiles.files, twoFiles.payload, opts)
	submitted := make(chan *Result, 1)
	go func() {
		res, _ := f.s.Submit(context.Background())
		submitted <- res
	}()
	<-started
	f.s.Abort()
	f.s.Abort()
	if res, err := f.s.outcome(); res != nil || err != nil {
		t.Fatalf("settled while the commit ran: %v %v", res, err)
	}
	close(release)
	if got := <-submitted; got.Status != StatusApplied {
		t.Errorf("the commit's own result: %s", got.Text())
	}
	if res, err := f.s.outcome(); err != nil || res.Status != StatusApplied {
		t.Errorf("settled as %v %v, want applied", res, err)
	}
	if f.read("two.txt") != "first\nnew three\nlast\n" {
		t.Errorf("the write did not complete: %q", f.read("two.txt"))
	}
}

// R10: an abort while a failing commit runs stays the outcome: the failure does not
// reopen a settled review.
func TestAbortDuringFailingCommit(t *testing.T) {
	inRename, release := make(chan struct{}), make(chan struct{})
	ffs := faultfs.New(afero.NewMemMapFs(), faultfs.FailEvery(func(op faultfs.Op, _ string) bool {
		if op != faultfs.OpRename {
			return false
		}
		close(inRename)
		<-release
		return true
	}))
	f := newFixtureOn(t, ffs, map[string]string{"one.txt": "a\n"}, patch("*** Update File: one.txt", "-a", "+b"), &Options{})
	done := make(chan error, 1)
	go func() {
		_, err := f.s.Submit(context.Background())
		done <- err
	}()
	<-inRename
	f.s.Abort()
	close(release)
	if err := <-done; !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("submit: %v", err)
	}
	if res, err := f.s.outcome(); f.s.View().State != StateSettled || !errors.Is(err, ErrAborted) || res.Text() != "Error: Patch review aborted" {
		t.Errorf("state %s, result %v %v", f.s.View().State, res, err)
	}
	if f.s.View().Conflict != nil {
		t.Errorf("conflict recorded after the abort: %v", f.s.View().Conflict)
	}
}

// R10, X17, S2: a cancelled context while a submission's commit runs does not end Run
// before the commit: Run waits for it, the commit stops at the cancellation and rolls
// back, and the review settles as aborted with nothing written. (Run once returned at the
// cancellation with the commit still writing, and a server that then exited left the
// tree half-written.)
func TestRunWaitsForTheCommitItCancels(t *testing.T) {
	inRename, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ffs := faultfs.New(afero.NewMemMapFs(), faultfs.FailEvery(func(op faultfs.Op, _ string) bool {
		if op == faultfs.OpRename {
			once.Do(func() { close(inRename); <-release })
		}
		return false
	}))
	f := newFixtureOn(t, ffs, twoFiles.files, twoFiles.payload, &Options{})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		_, err := f.s.Run(ctx, ReviewerFunc(func(ctx context.Context, s *Session) error {
			_, err := s.Submit(ctx)
			return err
		}))
		ran <- err
	}()
	<-inRename
	cancel()
	select { // the commit is held in its rename: Run must not return before it is let go
	case err := <-ran:
		t.Fatalf("Run returned (%v) while the commit was still writing", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-ran; !errors.Is(err, ErrAborted) {
		t.Fatalf("Run = %v, want aborted: the commit rolled back at the cancellation", err)
	}
	if f.read("one.txt") != twoFiles.files["one.txt"] || f.read("two.txt") != twoFiles.files["two.txt"] {
		t.Errorf("an aborted review wrote: %q %q", f.read("one.txt"), f.read("two.txt"))
	}
}

// R10: a cancelled context aborts the review, even when the reviewer returned early and
// left the settling to its front end.
func TestReviewContextCancelAborts(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Review(ctx, f.pr, ReviewerFunc(func(context.Context, *Session) error {
		cancel()
		return nil
	}))
	if !errors.Is(err, ErrAborted) || res.Text() != "Error: Patch review aborted" || res.Reviewed {
		t.Errorf("cancelled review: %v %+v", err, res)
	}
	if f.read("one.txt") != twoFiles.files["one.txt"] {
		t.Error("an aborted review wrote")
	}
}

// R10: a reviewer that stops because the context was cancelled and returns the
// context's error aborts the review: the cancellation, not the reviewer's report of it,
// is the outcome, whichever of the two Review sees first.
func TestReviewCancelReportedByReviewerAborts(t *testing.T) {
	for i := range 200 {
		f := newFixture(t, twoFiles.files, twoFiles.payload)
		ctx, cancel := context.WithCancel(context.Background())
		res, err := Review(ctx, f.pr, ReviewerFunc(func(ctx context.Context, _ *Session) error {
			cancel()
			return ctx.Err()
		}))
		if !errors.Is(err, ErrAborted) || res.Text() != "Error: Patch review aborted" {
			t.Fatalf("run %d: cancelled review: %v %q", i, err, res.Text())
		}
	}
}

// R10: a reviewer that returns early lets its front end settle later.
func TestReviewSettledLater(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	var later sync.WaitGroup
	res, err := Review(context.Background(), f.pr, ReviewerFunc(func(ctx context.Context, s *Session) error {
		later.Go(func() {
			if err := s.Select(Target{File: 2}, false, nil); err != nil {
				t.Error(err)
			}
			s.Submit(ctx)
		})
		return nil
	}))
	later.Wait()
	if err != nil || res.Applied != 2 || !hasLine(res.Text(), "Rejected: two.txt hunk 1") {
		t.Errorf("%v\n%s", err, res.Text())
	}
}

// R10: a reviewer's failure settles the review with it; autoApprove settles a conflict
// as an error result.
func TestReviewReviewerFailure(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	boom := errors.New("the terminal went away")
	res, err := Review(context.Background(), f.pr, ReviewerFunc(func(context.Context, *Session) error { return boom }))
	if !errors.Is(err, boom) || res.Text() != "Error: the terminal went away" {
		t.Errorf("%v %s", err, res.Text())
	}
	g := newFixture(t, twoFiles.files, twoFiles.payload)
	g.write("one.txt", "moved on\n")
	res, err = Review(context.Background(), g.pr, autoApprove)
	if !errors.Is(err, &ConflictError{}) || !strings.HasPrefix(res.Text(), "Error: file changed during review: one.txt") {
		t.Errorf("%v %s", err, res.Text())
	}
}

// R10, X6: an incomplete rollback keeps the review open, shows the authored path, the
// failure and the inspect hint, not the stale-file hint, and sends no result.
func TestSubmitIncompleteRollback(t *testing.T) {
	renames := 0
	ffs := faultfs.New(afero.NewMemMapFs(), faultfs.FailEvery(func(op faultfs.Op, _ string) bool {
		if op == faultfs.OpRename {
			renames++
			return renames > 1
		}
		return false
	}))
	f := newFixtureOn(t, ffs, twoFiles.files, twoFiles.payload, &Options{})
	_, err := f.s.Submit(context.Background())
	if !errors.As(err, new(*IncompleteRollbackError)) || f.s.View().State != StateOpen {
		t.Fatalf("%v, state %s", err, f.s.View().State)
	}
	if res, _ := f.s.outcome(); res != nil {
		t.Error("an incomplete rollback sent a result")
	}
	render := f.s.Render()
	if !strings.Contains(render, "Conflict: patch rollback incomplete") || !strings.Contains(render, "one.txt") ||
		!strings.Contains(render, "Inspect them before retrying") || strings.Contains(render, "Deselect the stale file") ||
		strings.Contains(render, "/ws") {
		t.Errorf("render:\n%s", render)
	}
}

// R10: the session is safe for concurrent use: front ends render, select and fold while
// another submits; exactly one outcome wins (run with -race).
func TestSessionConcurrentUse(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				f.s.View()
				f.s.Render()
				f.s.Card(CardOptions{})
				f.s.Fold(Target{}, i%2 == 0)
				f.s.Select(Target{1, 1}, i%2 == 1, DiscardFeedback)
			}
		})
	}
	wg.Go(func() {
		f.s.Submit(context.Background())
	})
	wg.Go(func() { f.s.Abort() })
	wg.Wait()
	<-f.s.Done()
	if res, _ := f.s.outcome(); res == nil || f.s.View().State != StateSettled {
		t.Fatalf("not settled: %s", f.s.View().State)
	}
}

// R10: when a reviewer settles the session and then still has work (releasing a terminal,
// answering its last request), Run returns only after the reviewer does, so the host
// never prints over a front end that is still drawing.
func TestRunWaitsForReviewerAfterSettling(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	release, finished, ran := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ran)
		f.s.Run(context.Background(), ReviewerFunc(func(ctx context.Context, s *Session) error {
			s.Submit(ctx)
			<-release // the front end tearing down
			close(finished)
			return nil
		}))
	}()
	<-f.s.Done()
	select {
	case <-ran:
		t.Fatal("Run returned while the reviewer was still running")
	case <-time.After(50 * time.Millisecond): // bounds the wait only: a correct Run never returns here
	}
	close(release)
	<-ran
	select {
	case <-finished:
	default:
		t.Fatal("Run returned before the reviewer finished")
	}
}
