package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// peekLen is how much of an overlong line the guard keeps, to find the id to answer.
const peekLen = 4 << 10

// maxDepth is the deepest nesting of arrays and objects the SDK's decoder accepts.
const maxDepth = 1000

// handle answers or forwards one line from the client (X17): a line that is not JSON is a
// parse error, one that is JSON but no message the SDK can take an invalid request,
// answered with the line's id when one can be read. It returns an error only when the
// client can no longer be answered or the SDK no longer reads.
func (g *guard) handle(line []byte, over bool) error {
	if over {
		return g.reply(newError(peekID(line), codeInvalidRequest, "invalid request: the message is longer than %d bytes", g.limit))
	}
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		return g.reply(newError(nil, codeParseError, "parse error: the line is not one JSON value"))
	case line[0] == '{':
		return g.single(line)
	case line[0] == '[':
		return g.batch(line)
	}
	return g.reply(newError(nil, codeInvalidRequest, "invalid request: a JSON-RPC message is a JSON object"))
}

// single answers or forwards one message.
func (g *guard) single(line []byte) error {
	msg, err := decode(line)
	if err != nil {
		return g.reply(newError(peekID(line), codeInvalidRequest, "invalid request: %v", err))
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && g.isPending(req.ID) {
		// the SDK would drop it, and a client waiting for its answer would wait forever
		return g.reply(newError(peekID(line), codeInvalidRequest, "invalid request: the id is that of a call in flight; give each call its own id"))
	}
	if !g.admit(msg) {
		return g.reply(newError(peekID(line), codeShuttingDown, "%s", errShuttingDown))
	}
	return g.forward(line)
}

// batch answers or forwards a batch, an array of messages. The SDK ends the session on a
// batch outside the protocol versions that have them, or one that repeats an id in
// flight, so the guard refuses those whole. It forwards a batch's notifications on their
// own, since the SDK would wait for an answer to them before answering the batch.
func (g *guard) batch(line []byte) error {
	msgs, raws, err := g.checkBatch(line)
	if err != nil {
		return g.reply(newError(nil, codeInvalidRequest, "invalid request: %v", err))
	}
	var rest [][]byte
	var refused []errorResponse
	for i, m := range msgs {
		switch {
		case isNotification(m):
			if err := g.forward(raws[i]); err != nil {
				return err
			}
		case g.admit(m):
			rest = append(rest, raws[i])
		default:
			refused = append(refused, newError(peekID(raws[i]), codeShuttingDown, "%s", errShuttingDown))
		}
	}
	if len(refused) > 0 {
		if err := g.reply(refused); err != nil {
			return err
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return g.forward(slices.Concat([]byte("["), bytes.Join(rest, []byte(",")), []byte("]")))
}

// checkBatch decodes a batch the SDK would take, or says why it would not.
func (g *guard) checkBatch(line []byte) ([]jsonrpc.Message, []json.RawMessage, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
		return nil, nil, errors.New("a batch holds at least one message")
	}
	if !g.batchesOn() {
		return nil, nil, errors.New("the negotiated protocol version has no JSON-RPC batches")
	}
	if depth(line) > maxDepth {
		return nil, nil, fmt.Errorf("the batch nests deeper than %d", maxDepth)
	}
	msgs, ids := make([]jsonrpc.Message, len(raws)), map[jsonrpc.ID]bool{}
	for i, raw := range raws {
		msg, err := decode(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("message %d of the batch: %v", i+1, err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if ids[req.ID] || g.isPending(req.ID) {
				return nil, nil, fmt.Errorf("message %d of the batch repeats the id of a call in flight", i+1)
			}
			ids[req.ID] = true
		}
		msgs[i] = msg
	}
	return msgs, raws, nil
}

// decode decodes one message as the SDK does. It also refuses an object with neither a
// method nor a result or an error, which the SDK would take for a response and drop.
func decode(raw []byte) (jsonrpc.Message, error) {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, err
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Result == nil && r.Error == nil {
		return nil, errors.New(`a request needs a "method", and a response a "result" or an "error"`)
	}
	return msg, nil
}

// isNotification reports whether msg is a request without an id.
func isNotification(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && !req.IsCall()
}

// elements returns the messages of one line the SDK wrote: the line, or a batch's items.
func elements(line []byte) []json.RawMessage {
	var raws []json.RawMessage
	if len(line) == 0 || line[0] != '[' || json.Unmarshal(line, &raws) != nil {
		return []json.RawMessage{line}
	}
	return raws
}

// peekID returns the top-level "id" of a message, or of the start of one, when it is a
// string or a number; nil (null) when none can be read.
func peekID(b []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "id" {
			if skipValue(dec) != nil {
				return nil
			}
			continue
		}
		switch v, _ := dec.Token(); v := v.(type) {
		case json.Number:
			return json.RawMessage(v)
		case string:
			raw, _ := json.Marshal(v)
			return raw
		}
		return nil
	}
	return nil
}

// skipValue reads past one value of dec.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// depth returns how deep arrays and objects nest in the JSON text b, counted as the SDK
// counts them: brackets outside strings.
func depth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}
