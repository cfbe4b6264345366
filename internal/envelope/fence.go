package envelope

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// fenceOpen is a Markdown code fence's first line: three or more backticks and an
// optional info word ("```diff", "````patch").
var fenceOpen = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^(`{3,})[ \t]*([A-Za-z0-9_+.-]+)?$") })

// fenceClose is a closing fence: backticks only.
var fenceClose = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^`{3,}$") })

// opensFence is fenceOpen's submatches of a line, nil where it opens no fence.
func opensFence(text string) []string {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "```") {
		return fenceOpen().FindStringSubmatch(t)
	}
	return nil
}

// unwrapFence strips a Markdown code fence around the envelope: the fence line
// directly before "*** Begin Patch" and a closing fence, at least as long, directly after
// "*** End Patch", blank lines aside. Anything else is left for unwrap to refuse; a
// fence that opens the envelope but does not close it is refused here, since the text
// after it may be prose.
func unwrapFence(lines []Line) ([]Line, error) {
	lines = trimBlank(lines)
	if len(lines) < 2 {
		return lines, nil
	}
	first := lines[0]
	m := opensFence(first.Text)
	if m == nil {
		return lines, nil
	}
	inner := trimBlank(lines[1:])
	if len(inner) == 0 || strings.TrimSpace(inner[0].Text) != Begin {
		return lines, nil // not a fence around the envelope: envelope refuses it
	}
	last := inner[len(inner)-1]
	t := strings.TrimSpace(last.Text)
	if !fenceClose().MatchString(t) || len(t) < len(m[1]) {
		for i := len(inner) - 2; i > 0; i-- {
			if c := strings.TrimSpace(inner[i].Text); fenceClose().MatchString(c) && len(c) >= len(m[1]) &&
				strings.TrimSpace(inner[i-1].Text) == End {
				extra := inner[i+1]
				return nil, &Error{Line: extra.N, Text: extra.Text,
					Msg: fmt.Sprintf("text follows the code fence that closes the patch on line %d; send only the "+
						"patch, with nothing after its last line", inner[i].N)}
			}
		}
		return nil, &Error{Line: last.N, Text: last.Text,
			Msg: fmt.Sprintf("the code fence opened on line %d must be closed by a line of at least %d backticks "+
				"directly after '*** End Patch'; close it there, or send the patch without the fence", first.N, len(m[1]))}
	}
	return inner[:len(inner)-1], nil // unwrap checks what ends it
}
