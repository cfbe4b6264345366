package faultfs

import "fmt"

// An Option configures an [Fs] in [New] or [Fs.Reset]. Options are built
// with [CountReads] and the rule constructors.
type Option interface {
	apply(*config)
}

// A Rule selects counted operations that must fail. It is built with
// [FailAt], [FailNth] or [FailEvery] and passed to [New] or [Fs.Reset].
type Rule interface {
	Option
	isRule()
}

type config struct {
	countReads bool
	rules      []*rule
}

// rule fails the nth counted operation matching pred, or every matching
// one when nth is 0. A nil pred matches every operation.
type rule struct {
	nth  int
	pred func(Op, string) bool
}

func (r *rule) apply(c *config) { c.rules = append(c.rules, r) }
func (r *rule) isRule()         {}

// FailAt returns a rule that fails the k-th counted operation and no other.
// It panics if k < 1.
func FailAt(k int) Rule {
	return newNth("FailAt", k, nil)
}

// FailNth returns a rule that fails the k-th counted operation for which
// pred(op, name) reports true. A nil pred matches every operation. It panics
// if k < 1. pred is called with the Fs's lock held and must not use the Fs.
func FailNth(k int, pred func(op Op, name string) bool) Rule {
	return newNth("FailNth", k, pred)
}

// FailEvery returns a rule that fails every counted operation for which
// pred(op, name) reports true. A nil pred matches every operation. pred is
// called with the Fs's lock held and must not use the Fs.
func FailEvery(pred func(op Op, name string) bool) Rule {
	return &rule{pred: pred}
}

func newNth(fn string, k int, pred func(Op, string) bool) Rule {
	if k < 1 {
		panic(fmt.Sprintf("faultfs.%s(%d): k must be at least 1", fn, k))
	}
	return &rule{nth: k, pred: pred}
}

type countReads struct{}

func (countReads) apply(c *config) { c.countReads = true }

// CountReads returns an option that counts reading operations (opens for
// reading, stats, reads, closes of read-only files, readlinks) as well as
// mutating ones, so rules can select them.
func CountReads() Option { return countReads{} }
