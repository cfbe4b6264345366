package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// A larkNode is one piece of a rule of the grammar subset toolGrammar uses: a literal, a
// regular expression, a reference to a rule or terminal, a sequence, alternatives, or a
// repetition (?, *, +).
type larkNode struct {
	kind     byte // '"' literal, '/' regexp, 'n' name, 's' sequence, '|' alternatives, '?', '*', '+'
	text     string
	children []*larkNode
}

// larkGrammar is a parsed grammar: each rule and terminal by name.
type larkGrammar map[string]*larkNode

// parseLark reads the rules of a Lark grammar written in the subset toolGrammar uses.
func parseLark(t *testing.T, src string) larkGrammar {
	t.Helper()
	g := larkGrammar{}
	for _, line := range strings.Split(strings.TrimSpace(src), "\n") {
		name, body, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("grammar line %q has no rule", line)
		}
		p := &larkParser{s: strings.TrimSpace(body)}
		g[strings.TrimSpace(name)] = p.alt()
		if p.s != "" {
			t.Fatalf("rule %s: cannot read %q", name, p.s)
		}
	}
	return g
}

type larkParser struct{ s string }

func (p *larkParser) skip() { p.s = strings.TrimLeft(p.s, " ") }

func (p *larkParser) alt() *larkNode {
	n := &larkNode{kind: '|', children: []*larkNode{p.seq()}}
	for p.skip(); strings.HasPrefix(p.s, "|"); p.skip() {
		p.s = p.s[1:]
		n.children = append(n.children, p.seq())
	}
	return n
}

func (p *larkParser) seq() *larkNode {
	n := &larkNode{kind: 's'}
	for p.skip(); p.s != "" && p.s[0] != '|' && p.s[0] != ')'; p.skip() {
		n.children = append(n.children, p.item())
	}
	return n
}

func (p *larkParser) item() *larkNode {
	var a *larkNode
	switch c := p.s[0]; {
	case c == '"' || c == '/':
		end := strings.IndexByte(p.s[1:], c) + 1
		a = &larkNode{kind: c, text: p.s[1:end]}
		if c == '"' {
			a.text, _ = strconv.Unquote(p.s[:end+1])
		}
		p.s = p.s[end+1:]
	case c == '(':
		p.s = p.s[1:]
		a = p.alt()
		p.s = strings.TrimPrefix(strings.TrimLeft(p.s, " "), ")")
	default:
		end := strings.IndexAny(p.s, " |()?*+")
		if end < 0 {
			end = len(p.s)
		}
		a = &larkNode{kind: 'n', text: p.s[:end]}
		p.s = p.s[end:]
	}
	if p.s != "" && strings.IndexByte("?*+", p.s[0]) >= 0 {
		a = &larkNode{kind: p.s[0], children: []*larkNode{a}}
		p.s = p.s[1:]
	}
	return a
}

// regexp compiles a node to a Go regular expression; the grammar is not recursive, so
// every reference is expanded in place.
func (g larkGrammar) regexp(n *larkNode) string {
	switch n.kind {
	case '"':
		return regexp.QuoteMeta(n.text)
	case '/':
		return "(?:" + n.text + ")"
	case 'n':
		return "(?:" + g.regexp(g[n.text]) + ")"
	case 's':
		var b strings.Builder
		for _, c := range n.children {
			b.WriteString(g.regexp(c))
		}
		return b.String()
	case '|':
		parts := make([]string, len(n.children))
		for i, c := range n.children {
			parts[i] = g.regexp(c)
		}
		return "(?:" + strings.Join(parts, "|") + ")"
	}
	return "(?:" + g.regexp(n.children[0]) + ")" + string(n.kind)
}

// larkSamples are the strings a derivation picks for each terminal: plain ones and those
// a payload reads specially.
var larkSamples = map[string][]string{
	"path": {"a.txt", "src/app.go", "dir/b.txt", "a.txt", "c.txt ", "d/", "e.txt"},
	"TEXT": {"x", "func f() {", "}", "\ty", "12", "-3,2 +3,4 @@ f", "*** End Patch", "@@", " ", "+x"},
	"WS":   {" ", "\t", "  "},
	"EOL":  {"\n", "\n", "\r\n"},
}

// larkCounts are how many times a derivation repeats what ?, * and + apply to.
var larkCounts = map[byte][2]int{'?': {0, 1}, '*': {0, 2}, '+': {1, 3}}

// derive writes a random string the node derives.
func (g larkGrammar) derive(r *rand.Rand, n *larkNode, b *strings.Builder) {
	switch n.kind {
	case '"':
		b.WriteString(n.text)
	case 'n':
		if s, ok := larkSamples[n.text]; ok {
			b.WriteString(s[r.IntN(len(s))])
			return
		}
		g.derive(r, g[n.text], b)
	case 's':
		for _, c := range n.children {
			g.derive(r, c, b)
		}
	case '|':
		g.derive(r, n.children[r.IntN(len(n.children))], b)
	case '?', '*', '+':
		counts := larkCounts[n.kind]
		for range counts[0] + r.IntN(counts[1]-counts[0]+1) {
			g.derive(r, n.children[0], b)
		}
	}
}

// semanticRefusals are the refusals of Parse that no grammar of lines can express: the
// grammar admits such payloads, and Parse explains what to change.
var semanticRefusals = []string{
	"already touched",                 // two sections on one path
	"has no lines",                    // an "@@" hunk followed by another "@@" or a marker
	"has no hunks",                    // an Update with neither hunks nor a Move
	"context only",                    // an Update that changes nothing
	"names a directory",               // a path ending in a slash
	"only '+' lines",                  // a unified-diff header over added lines alone
	"a new hunk must start with '@@'", // lines after "*** End of File" without "@@"
	"at most one '@@ N' line",         // two line hints in one chain
	"has no operations",               // no sections
	"must start with '+'",             // a blank line inside an Add
	"has no body",                     // (the grammar keeps a Delete's body empty)
	"the line hint is too large",      // "@@ N" beyond int
	"the unified-diff line number is too large",
	"wrapped in quotes",                 // a path in quotes or backticks
	"anchors; name the enclosing lines", // a chain longer than a hunk may name
	"reads as a hunk header",            // "+@@ …" first in a hunk: the grammar's '+' line is one rule
}

// TestFreeformGrammarAgreesWithParse: H6. The freeform tool's grammar admits every payload
// Parse accepts without a wrapper (the behaviour tests' payloads, the parser's fuzz
// corpus and, where present, the shared conformance cases); and every payload the
// grammar derives, Parse accepts or refuses for a reason no grammar of lines can state.
func TestFreeformGrammarAgreesWithParse(t *testing.T) {
	g := parseLark(t, toolGrammar)
	re := regexp.MustCompile(`\A` + g.regexp(g["start"]) + `\z`)
	payloads := freeformCorpus(t)
	accepted := 0
	for name, payload := range payloads {
		if _, err := Parse(payload); err != nil || wrapped(payload) {
			continue
		}
		accepted++
		if !re.MatchString(payload) {
			t.Errorf("%s: Parse accepts it, the grammar does not:\n%s", name, payload)
		}
	}
	if accepted < 150 {
		t.Errorf("only %d payloads of the corpus parse: it tests too little", accepted)
	}
	r := rand.New(rand.NewPCG(6, 6))
	parsed := 0
	for trial := range 20_000 {
		var b strings.Builder
		g.derive(r, g["start"], &b)
		payload := b.String()
		if !re.MatchString(payload) {
			t.Fatalf("trial %d: the grammar's own derivation does not match it:\n%q", trial, payload)
		}
		_, err := Parse(payload)
		var pe *ParseError
		switch {
		case err == nil:
			parsed++
		case !errors.As(err, &pe) || !refusedSemantically(pe.Msg):
			t.Fatalf("trial %d: the grammar admits a payload Parse refuses for its shape: %v\n%q", trial, err, payload)
		}
	}
	t.Logf("%d payloads of the corpus parse and match; %d of 20,000 derivations parse", accepted, parsed)
	if parsed < 2000 {
		t.Errorf("only %d of the grammar's derivations parse: the grammar and Parse disagree too often", parsed)
	}
}

// wrapped reports whether a payload is accepted only for a wrapper the freeform input has
// no need of (a heredoc, a code fence, an indentation of every line) or for text the
// grammar does not allow before it.
func wrapped(payload string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(payload, "\r\n"), "\n")
	return strings.TrimRight(first, " \t\r") != "*** Begin Patch"
}

func refusedSemantically(msg string) bool {
	for _, s := range semanticRefusals {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// freeformCorpus gathers payloads: every file of the behaviour tests that holds one, the
// seed corpus of FuzzParse, and the shared conformance cases when they are beside the
// module.
func freeformCorpus(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	archives, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	for _, name := range archives {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.Contains(string(f.Data), "*** Begin Patch") {
				out[name+"/"+f.Name] = string(f.Data)
			}
		}
	}
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if s, ok := strings.CutPrefix(line, "string("); ok {
				if v, err := strconv.Unquote(strings.TrimSuffix(s, ")")); err == nil {
					out[name] = v
				}
			}
		}
	}
	cases, _ := filepath.Glob(filepath.Join("..", "shared", "conformance", "*", "*", "patch.txt"))
	for _, name := range cases {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	return out
}

// TestCallResponsesCustom: H6. A custom_tool_call of the freeform tool carries the whole
// payload as its input; CallResponses answers with a custom_tool_call_output echoing the
// call_id, and a refusal writes nothing.
func TestCallResponsesCustom(t *testing.T) {
	call := func(name, input string) json.RawMessage {
		b, _ := json.Marshal(customCall{Type: "custom_tool_call", ID: "ctc_1", CallID: "call_9", Name: name, Input: input})
		return b
	}
	update := "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n*** End Patch\n"
	tests := []struct {
		name, output string // output exact, or a prefix when it ends in "…"
		item         json.RawMessage
		after        map[string]string
	}{
		{name: "update", item: call("apply_patch", update), output: "Applied patch: 1 change\nApplied: main.go hunk 1",
			after: map[string]string{"/ws/main.go": strings.Replace(toolBase, `"hi"`, `"hello"`, 1)}},
		{name: "no match", item: call("apply_patch", strings.Replace(update, `"hi"`, `"bye"`, 1)), output: "Error: main.go: hunk 1 (payload line 3)…"},
		{name: "prose", item: call("apply_patch", "Here is the patch:\n"+update), output: "Error: invalid patch: line 1…"},
		{name: "other tool", item: call("shell", update), output: `Error: invalid arguments: not a custom_tool_call of apply_patch: the call is for the tool "shell"…`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := memFiles(t, map[string]string{"main.go": toolBase})
			before := contents(t, fsys)
			tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeEdits}}
			raw, res, err := tool.CallResponses(context.Background(), tt.item)
			var out customOutput
			if e := json.Unmarshal(raw, &out); e != nil || out.Type != "custom_tool_call_output" || out.CallID != "call_9" || out.Output != res.Text() {
				t.Errorf("output = %s, want a custom_tool_call_output for call_9 with the result's text", raw)
			}
			if want, prefix := strings.CutSuffix(tt.output, "…"); prefix && !strings.HasPrefix(out.Output, want) || !prefix && out.Output != want {
				t.Errorf("output:\n%s\nwant:\n%s", out.Output, tt.output)
			}
			if (err != nil) != strings.HasPrefix(tt.output, "Error: ") {
				t.Errorf("err = %v", err)
			}
			checkFiles(t, fsys, before, tt.after)
		})
	}
}
