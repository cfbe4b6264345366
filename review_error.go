package applypatch

import "errors"

// ErrAborted is the error of a review torn down before it settled: its front end went
// away, or the context was cancelled. The model sees "Error: Patch review aborted".
var ErrAborted = errors.New("Patch review aborted")

// ReviewReason says why a [Session] refused a request.
type ReviewReason int

const (
	// ReviewRefused: the request cannot be carried out as asked (an unknown target, a
	// revision already open or closed, nothing to edit, an edit that cannot be adopted or
	// did not validate, navigation past the ends, nothing to visit); the message says which
	// and what to do instead.
	ReviewRefused ReviewReason = iota + 1
	// ReviewClosed: the review takes no more requests: the patch is being applied (the
	// review is inert until that finishes; [View].State is [StateSubmitting]) or the review
	// has settled and nothing can change it any more.
	ReviewClosed
	// ReviewNeedsConfirm: the request clears feedback and the front end did not confirm it.
	ReviewNeedsConfirm
	// ReviewUnrestorable: saved review state cannot be restored (malformed, from another
	// version, or not matching its own baselines); resolve the patch again.
	ReviewUnrestorable
)

// The private reasons a ReviewError reports as [ReviewRefused] or [ReviewClosed], each
// with its own message.
const (
	reviewUnknownTarget ReviewReason = -1 - iota
	reviewRevisionOpen
	reviewRevisionClosed
	reviewNothingToEdit
	reviewRevisionRefused
	reviewRevisionInvalid
	reviewRevisionUnchanged // the edited text is what the patch already proposes
	reviewRevisionStale     // the file's selection changed while the revision was open
	reviewNoRow
	reviewNotVisitable
	reviewEmptyFeedback
	reviewBusy    // ReviewClosed: the patch is being applied
	reviewSettled // ReviewClosed: the review has settled
	reviewLate    // ReviewClosed: a revision adopted after the review left the open state
)

// closedReasons are the private reasons reported as ReviewClosed; the others are
// reported as ReviewRefused.
var closedReasons = map[ReviewReason]bool{reviewBusy: true, reviewSettled: true, reviewLate: true}

// reviewReasonText is the message of each reason, written for the person or model
// reading it.
var reviewReasonText = map[ReviewReason]string{
	ReviewRefused:           "request refused",
	ReviewClosed:            "the review takes no more requests",
	ReviewUnrestorable:      "cannot restore the review",
	reviewUnknownTarget:     "no change has that target",
	reviewBusy:              "the patch is being applied; wait for the review to settle",
	reviewSettled:           "the review has already settled",
	reviewLate:              "revision discarded",
	ReviewNeedsConfirm:      "this clears staged feedback and needs confirmation",
	reviewRevisionOpen:      "another revision is already open; adopt or cancel it first",
	reviewRevisionClosed:    "this revision was already adopted or cancelled",
	reviewNothingToEdit:     "nothing to edit",
	reviewRevisionRefused:   "revision refused",
	reviewRevisionUnchanged: "nothing to adopt",
	reviewRevisionStale:     "revision discarded",
	reviewRevisionInvalid:   "revision not adopted",
	reviewNoRow:             "no further change",
	reviewNotVisitable:      "nothing to visit",
	reviewEmptyFeedback:     "feedback cannot be empty",
}

// A ReviewError is a request a [Session] refused. Nothing changed. Reason says why; Detail
// says more and what to do instead; Prompt is the question a front end asks the person
// when Reason is [ReviewNeedsConfirm] before repeating the request with a confirm
// function that says yes ([DiscardFeedback]).
//
// errors.Is(err, &ReviewError{}) holds for every ReviewError, and
// errors.Is(err, &ReviewError{Reason: ReviewClosed}) for one with that reason.
type ReviewError struct {
	Reason ReviewReason
	// why is the private reason behind ReviewRefused or ReviewClosed, which picks the
	// message.
	why    ReviewReason
	Target Target
	Detail string
	Prompt string
	// Err is the underlying failure of a revision that did not validate.
	Err error
}

func (e *ReviewError) Error() string {
	msg := reviewReasonText[e.Reason]
	if e.why != 0 {
		msg = reviewReasonText[e.why]
	}
	if e.Reason == ReviewNeedsConfirm && e.Prompt != "" {
		msg += ": " + e.Prompt
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying failure, if any.
func (e *ReviewError) Unwrap() error { return e.Err }

// Is reports whether target is a *ReviewError with the same Reason, or with no Reason.
func (e *ReviewError) Is(target error) bool {
	t, ok := target.(*ReviewError)
	return ok && (t.Reason == 0 || t.Reason == e.Reason || t.Reason == e.why)
}

func reviewErr(r ReviewReason, t Target, detail string) *ReviewError {
	return refused(&ReviewError{Reason: r, Target: t, Detail: detail})
}

// refused reports a private reason as ReviewRefused or ReviewClosed, keeping its message.
func refused(e *ReviewError) *ReviewError {
	if e.Reason < 0 {
		e.Reason, e.why = ReviewRefused, e.Reason
		if closedReasons[e.why] {
			e.Reason = ReviewClosed
		}
	}
	return e
}

// ErrRejected is the error of a review that selected nothing and staged no feedback.
var ErrRejected = errors.New("Patch rejected")

// errNoProposal is the error of a Commit, a Review or a Preview of a nil *Proposal: the
// host's mistake, told to the host.
var errNoProposal = errors.New("applypatch: no proposal (a nil *Proposal): the call that should have made it " +
	"returned an error; check that error before committing or reviewing")

// errNoReviewer is the error of a call in [ModeAsk] mode on a [Tool] without a Reviewer: the
// host must give one, or choose [ModeEdits] or [ModeFullAuto].
var errNoReviewer = errors.New("the tool is in ask mode but has no reviewer to ask; " +
	"the host must give it a Reviewer, or use the edits or full-auto mode")
