package applypatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Tool argument names: patchText is the one the schema advertises; input is accepted
// as an alias, the name Codex gives the same argument.
const (
	argPatchText = "patchText"
	argInput     = "input"
)

// Messages of the argument checks, each saying what to send instead.
const (
	msgNotObject = `the arguments must be a JSON object with one string property, ` +
		`{"patchText": "*** Begin Patch\n...\n*** End Patch"}`
	msgUnknown = `%s: the only argument is "patchText", a string holding the whole patch; remove the others`
	msgBoth    = `both "patchText" and "input" were given; send the patch once, in "patchText"`
	msgTwice   = `%q is given twice; send it once`
	msgMissing = `"patchText" is missing; send the whole patch, from "*** Begin Patch" to "*** End Patch", ` +
		`as the string property "patchText"`
	msgNotString = `%q must be a string holding the whole patch, not %s`
	msgEmpty     = `%q is empty; send the whole patch, from "*** Begin Patch" to "*** End Patch"`
)

// ParseToolArgs validates the JSON arguments of an apply_patch tool call and returns the
// patch text. The arguments must be a JSON object with exactly one property,
// "patchText" (or its alias "input"), holding a non-blank string. Anything else is a
// [*ParseError] whose message tells the model what to send instead.
//
// With [ResolvePayload] it is the first half of [Tool.Call], for a host that shows the
// proposal to a person itself (or pauses for one) before it commits it:
//
//	text, err := applypatch.ParseToolArgs(args)
//	...
//	pr, err := applypatch.ResolvePayload(ctx, tool.FS, text, &tool.Options)
func ParseToolArgs(args json.RawMessage) (string, error) {
	props, err := objectProps(args)
	if err != nil {
		return "", err
	}
	var unknown []string
	for _, p := range props {
		if p.name != argPatchText && p.name != argInput {
			unknown = append(unknown, fmt.Sprintf("%q", p.name))
		}
	}
	if len(unknown) > 0 {
		what := "unknown argument "
		if len(unknown) > 1 {
			what = "unknown arguments "
		}
		return "", argumentError(fmt.Sprintf(msgUnknown, what+strings.Join(unknown, ", ")))
	}
	switch len(props) {
	case 0:
		return "", argumentError(msgMissing)
	case 1:
		return patchString(props[0])
	}
	if props[0].name == props[1].name {
		return "", argumentError(fmt.Sprintf(msgTwice, props[0].name))
	}
	return "", argumentError(msgBoth)
}

// prop is one property of a JSON object, in the order it was written.
type prop struct {
	name  string
	value json.RawMessage
}

// objectProps reads a JSON object's properties in order, keeping duplicates, so that no
// property is silently dropped or overridden.
func objectProps(args json.RawMessage) ([]prop, error) {
	notObject := argumentError(msgNotObject)
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	var props []prop
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		var p prop
		p.name, _ = tok.(string)
		if err := dec.Decode(&p.value); err != nil {
			return nil, notObject
		}
		props = append(props, p)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notObject
	}
	return props, nil
}

// patchString reads the patch text from the one valid property.
func patchString(p prop) (string, error) {
	var s string
	if p.value[0] != '"' || json.Unmarshal(p.value, &s) != nil { // Unmarshal takes null as ""
		return "", argumentError(fmt.Sprintf(msgNotString, p.name, jsonType(p.value)))
	}
	if strings.TrimSpace(s) == "" {
		return "", argumentError(fmt.Sprintf(msgEmpty, p.name))
	}
	return s, nil
}

// jsonType names the type of a JSON value for a message: "a number", "an object"…
func jsonType(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
