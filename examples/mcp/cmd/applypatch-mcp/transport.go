package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes the guard answers with.
const (
	codeParseError     = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	// codeShuttingDown is a server error (JSON-RPC reserves -32000 to -32099 for them).
	codeShuttingDown = -32000
)

// errShuttingDown answers a call that arrives once the server has begun to stop.
const errShuttingDown = "the server is shutting down and accepts no new calls; nothing was done"

// guard is the server's transport (X17): it reads newline-delimited JSON-RPC from the
// client and hands the SDK's stdio connection only lines it can decode, because the SDK
// ends the session, and so the server, on the first line it cannot. The guard answers
// every other line itself with a JSON-RPC error, and goes on reading. Its writer is shared
// by the SDK and the guard under one lock, so that no two answers interleave.
//
// The guard also knows which calls are in flight (forwarded and not yet answered), so that
// drain can refuse new calls and end the session once those are answered.
type guard struct {
	in    io.Reader
	limit int            // the longest line read, in bytes
	toSDK *io.PipeWriter // the lines the SDK reads
	sdkIn *io.PipeReader

	outMu sync.Mutex // serializes writes to out
	out   io.Writer

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool // calls forwarded and not yet answered
	initID   *jsonrpc.ID         // the initialize call, until it is answered
	batchOK  bool                // the negotiated protocol version has batches
	draining bool
}

// newGuard returns a guard reading lines of at most limit bytes from in and writing to out.
func newGuard(in io.Reader, out io.Writer, limit int) *guard {
	pr, pw := io.Pipe()
	return &guard{in: in, out: out, limit: limit, toSDK: pw, sdkIn: pr, pending: map[jsonrpc.ID]bool{}}
}

// Connect implements mcp.Transport: it starts reading the client and returns the SDK's own
// stdio connection over the lines the guard lets through. The guard already bounds lines,
// so the SDK's bound is off.
func (g *guard) Connect(ctx context.Context) (mcp.Connection, error) {
	go g.pump()
	return (&mcp.IOTransport{Reader: g.sdkIn, Writer: sdkWriter{g}, MaxLineLength: -1}).Connect(ctx)
}

// pump reads the client line by line until the input ends or the SDK goes away, and then
// ends the SDK's input with the same error.
func (g *guard) pump() {
	r := bufio.NewReaderSize(g.in, 64<<10)
	for {
		line, over, err := readLine(r, g.limit)
		if herr := g.handle(line, over); herr != nil {
			err = herr
		}
		if err != nil {
			g.toSDK.CloseWithError(err) // io.EOF reads as the end of input
			return
		}
	}
}

// drain stops admitting calls: from now on the guard answers each new call with an error,
// while it still forwards notifications (a cancellation among them) and the client's
// answers to the server's own requests, which calls in flight may await. Once no call is
// in flight it ends the SDK's input, and so the session.
func (g *guard) drain() {
	g.mu.Lock()
	g.draining = true
	idle := len(g.pending) == 0
	g.mu.Unlock()
	if idle {
		g.toSDK.Close()
	}
}

// inFlight returns how many calls the SDK has not answered yet.
func (g *guard) inFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pending)
}

// admit records msg as in flight if it is a call, or reports false if it is a call and
// the guard is draining. It notes the initialize call, whose answer says whether batches
// are allowed.
func (g *guard) admit(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.draining {
		return false
	}
	g.pending[req.ID] = true
	if req.Method == "initialize" {
		g.initID = &req.ID
	}
	return true
}

// answered notes one response the SDK is writing, and reports whether it answers the
// last call in flight of a draining guard, whose SDK input then ends.
func (g *guard) answered(resp *jsonrpc.Response) (idle bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.pending, resp.ID)
	if g.initID != nil && *g.initID == resp.ID {
		g.initID, g.batchOK = nil, batchesAllowed(resp.Result)
	}
	return g.draining && len(g.pending) == 0
}

// batchesAllowed reports whether the initialize result negotiated a protocol version with
// JSON-RPC batches: those before 2025-06-18, as the SDK decides.
func batchesAllowed(result json.RawMessage) bool {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	return json.Unmarshal(result, &r) == nil && r.ProtocolVersion != "" && r.ProtocolVersion < "2025-06-18"
}

// batchesOn reports whether a batch may go to the SDK now.
func (g *guard) batchesOn() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.batchOK
}

// isPending reports whether a call with id is in flight.
func (g *guard) isPending(id jsonrpc.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pending[id]
}

// forward hands one message to the SDK.
func (g *guard) forward(msg []byte) error {
	_, err := g.toSDK.Write(append(msg, '\n'))
	return err
}

// write writes one line to the client.
func (g *guard) write(line []byte) (int, error) {
	g.outMu.Lock()
	defer g.outMu.Unlock()
	return g.out.Write(line)
}

// errorResponse is a JSON-RPC error response. Unlike the SDK's encoding it keeps
// "id": null, which JSON-RPC asks for when the id could not be read.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   errorObject     `json:"error"`
}

// errorObject is the error member of a JSON-RPC response.
type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// newError returns an error response to the message with id (nil for null).
func newError(id json.RawMessage, code int, format string, args ...any) errorResponse {
	return errorResponse{JSONRPC: "2.0", ID: id, Error: errorObject{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// reply writes v, one error response or an array of them, as one line to the client.
func (g *guard) reply(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = g.write(append(b, '\n'))
	return err
}

// sdkWriter is the SDK's side of the guard's writer: each Write is one message (or one
// batch of responses), whose responses the guard notes as they are written.
type sdkWriter struct{ g *guard }

// Write writes the SDK's message to the client and notes the calls it answers.
//
// The answers are noted before the line goes out, so that a client that reads the answer
// to initialize and sends a batch at once finds batches allowed already; the SDK's input
// ends after it.
func (w sdkWriter) Write(p []byte) (int, error) {
	idle := false
	for _, raw := range elements(bytes.TrimSpace(p)) {
		msg, _ := jsonrpc.DecodeMessage(raw)
		if resp, ok := msg.(*jsonrpc.Response); ok {
			idle = w.g.answered(resp) || idle
		}
	}
	n, err := w.g.write(p)
	if idle {
		w.g.toSDK.Close()
	}
	return n, err
}

// Close leaves the client's output open: the guard may still answer on it.
func (sdkWriter) Close() error { return nil }

// readLine reads one line of r without its newline. A line longer than limit is consumed to
// its end but only its first peekLen bytes are kept, and over reports it.
func readLine(r *bufio.Reader, limit int) (line []byte, over bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case over:
		case len(line)+len(chunk) > limit+1: // +1: the newline
			over, line = true, head(line, chunk, peekLen)
		default:
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return bytes.TrimSuffix(line, []byte("\n")), over, err
		}
	}
}

// head returns a copy of the first n bytes of a followed by b.
func head(a, b []byte, n int) []byte {
	h := make([]byte, 0, n)
	h = append(h, a[:min(len(a), n)]...)
	return append(h, b[:min(len(b), n-len(h))]...)
}
