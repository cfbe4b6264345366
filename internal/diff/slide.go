package diff

import "strings"

// diffChangeGaps returns, for each k from 0 to the number of unchanged lines, whether changed
// lines lie right after the k-th unchanged line (k == 0: before the first one).
func diffChangeGaps(changed []bool) []bool {
	kept := 0
	for _, c := range changed {
		if !c {
			kept++
		}
	}
	gaps := make([]bool, kept+1)
	k := 0
	for _, c := range changed {
		if c {
			gaps[k] = true
		} else {
			k++
		}
	}
	return gaps
}

// slideChangeRuns moves each run of changed lines of x to its most natural equivalent
// position. A run x[s:e] can move down one line when x[s] == x[e] and x[e] is unchanged
// (and up one when x[s-1] == x[e-1]): the unchanged lines keep the same text in the same
// order, so the script stays valid and equally short. Among the reachable positions it
// prefers, in order: one that lines up with a change in the other file (gaps, from
// diffChangeGaps), so a replacement stays together; one where the run's last line is blank;
// one where it is a closing-bracket line; and then the one furthest down.
func slideChangeRuns(x []string, changed []bool, gaps []bool) {
	kept := 0 // unchanged lines before i
	for i := 0; i < len(x); {
		if !changed[i] {
			kept++
			i++
			continue
		}
		e := i
		for e < len(x) && changed[e] {
			e++
		}
		t := bestRunShift(x, changed, i, e, kept, gaps)
		for j := i; j < e; j++ {
			changed[j] = false
		}
		for j := i + t; j < e+t; j++ {
			changed[j] = true
		}
		i, kept = e+t, kept+t
	}
}

// bestRunShift returns how far (negative: up) to move the run x[s:e] of changed lines, which
// has kept unchanged lines before it; see slideChangeRuns.
func bestRunShift(x []string, changed []bool, s, e, kept int, gaps []bool) int {
	lo := 0
	for s+lo > 0 && !changed[s+lo-1] && x[s+lo-1] == x[e+lo-1] {
		lo--
	}
	hi := 0
	for e+hi < len(x) && !changed[e+hi] && x[s+hi] == x[e+hi] {
		hi++
	}
	if lo == hi {
		return 0
	}
	best, bestScore := 0, -1
	for t := lo; t <= hi; t++ {
		score := blockEndScore(x[e+t-1])
		if gaps[kept+t] {
			score += 4
		}
		if score >= bestScore {
			best, bestScore = t, score
		}
	}
	return best
}

// blockEndScore rates a line as the last line of a block: 2 for a blank line, 1 for a line of
// closing brackets, 0 otherwise.
func blockEndScore(line string) int {
	line = strings.TrimSpace(line)
	switch {
	case line == "":
		return 2
	case isCloserLine(line):
		return 1
	}
	return 0
}

// isCloserLine reports whether the trimmed line is made of '}', ')' and ']', optionally
// followed by ',' or ';', as in "}", "})" or "},".
func isCloserLine(trimmed string) bool {
	s := strings.TrimRight(trimmed, ",;")
	return s != "" && strings.Trim(s, "})]") == ""
}
