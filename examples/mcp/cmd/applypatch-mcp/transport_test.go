package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// answerWait bounds every wait of the raw client for the server.
const answerWait = 10 * time.Second

// rawClient speaks newline-delimited JSON-RPC, line by line, to a server run by serve
// over in-memory pipes, as a client on standard input and output would.
type rawClient struct {
	t       *testing.T
	in      *io.PipeWriter // the server's input
	lines   chan []byte    // the server's output
	sigs    chan os.Signal // signals to serve
	g       *guard
	stopped chan struct{} // closed when serve returns, with err
	err     error
}

// startRaw serves cfg (on a MemMapFs workspace /ws holding main.go unless cfg.FS is set)
// through a guard reading lines of at most limit bytes. onHalt, if set, runs when serve
// cancels the calls in flight.
func startRaw(t *testing.T, cfg Config, limit int, onHalt func()) *rawClient {
	t.Helper()
	if cfg.FS == nil {
		cfg.FS = afero.NewMemMapFs()
	}
	cfg.Workspace = "/ws"
	afero.WriteFile(cfg.FS, "/ws/main.go", []byte(baseMain), 0o644)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawClient{t: t, in: inW, lines: make(chan []byte, 1000), sigs: make(chan os.Signal, 2),
		g: newGuard(inR, outW, limit), stopped: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	halt := func() {
		cancel()
		if onHalt != nil {
			onHalt()
		}
	}
	go func() { c.err = serve(newServer(cfg, ctx), c.g, c.sigs, halt); close(c.stopped) }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			c.lines <- bytes.Clone(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		c.wait()
		cancel()
		outR.Close()
	})
	return c
}

// send writes one line to the server.
func (c *rawClient) send(line string) {
	c.t.Helper()
	sent := make(chan error, 1)
	go func() { _, err := c.in.Write([]byte(line + "\n")); sent <- err }()
	select {
	case err := <-sent:
		if err != nil {
			c.t.Fatalf("send: %v", err)
		}
	case <-time.After(answerWait):
		c.t.Fatalf("the server does not read its input")
	}
}

// next returns the server's next line, decoded as a JSON object.
func (c *rawClient) next() rawMsg {
	c.t.Helper()
	select {
	case line := <-c.lines:
		var m rawMsg
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("the server wrote %q, not a JSON object: %v", line, err)
		}
		return m
	case <-time.After(answerWait):
		c.t.Fatalf("no answer from the server in %v", answerWait)
		return nil
	}
}

// initialize opens the session under protocol.
func (c *rawClient) initialize(protocol string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + protocol +
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := c.next(); m["result"] == nil {
		c.t.Fatalf("initialize: %s", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ping checks that the server answers a ping with id.
func (c *rawClient) ping(id int) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if m := c.next(); string(m["id"]) != fmt.Sprint(id) || m["result"] == nil {
		c.t.Fatalf("ping %d: %s", id, m)
	}
}

// wait waits for serve to return.
func (c *rawClient) wait() error {
	c.t.Helper()
	select {
	case <-c.stopped:
		return c.err
	case <-time.After(answerWait):
		c.t.Fatalf("serve did not return in %v", answerWait)
		return nil
	}
}

// rawMsg is a JSON-RPC message by member.
type rawMsg map[string]json.RawMessage

// code returns the error code of a response, or 0.
func (m rawMsg) code() int {
	var e struct{ Code int }
	json.Unmarshal(m["error"], &e)
	return e.Code
}

// String shows the message.
func (m rawMsg) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// TestGuardMalformed checks that each line the SDK cannot take gets a JSON-RPC error,
// with the id when one can be read, and that the server goes on serving (X17).
func TestGuardMalformed(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	tests := []struct {
		line string
		code int
		id   string // the raw id of the answer
	}{
		{"not json", codeParseError, "null"},
		{"{", codeParseError, "null"},
		{strings.Repeat("[", 2000), codeParseError, "null"},
		{`{"jsonrpc":"2.0","id":13,"method":"ping"}{"jsonrpc":"2.0","id":14,"method":"ping"}`, codeParseError, "null"},
		{"[]", codeInvalidRequest, "null"},
		{`[{"jsonrpc":"2.0","id":20,"method":"ping"}]`, codeInvalidRequest, "null"}, // no batches in 2025-06-18
		{"{}", codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0"}`, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":21}`, codeInvalidRequest, "21"},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, codeInvalidRequest, "5"},
		{`{"method":"ping","id":"a\"b","jsonrpc":2}`, codeInvalidRequest, `"a\"b"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, codeInvalidRequest, "1e400"},
		{`{"jsonrpc":"2.0","id":22,"method":7}`, codeInvalidRequest, "22"},
		{`{"jsonrpc":"2.0","id":23,"method":"ping","params":` + deep + `}`, codeInvalidRequest, "23"},
		{`{"jsonrpc":"2.0","id":24,"method":"ping","params":"` + strings.Repeat("x", 5000) + `"}`, codeInvalidRequest, "24"},
		{`{"jsonrpc":"2.0","params":"` + strings.Repeat("x", 5000) + `","id":25}`, codeInvalidRequest, "null"},
		{"null", codeInvalidRequest, "null"},
		{"5", codeInvalidRequest, "null"},
		{`"x"`, codeInvalidRequest, "null"},
	}
	c := startRaw(t, Config{}, 4096, nil)
	c.initialize("2025-06-18")
	for i, tt := range tests {
		c.send(tt.line)
		m := c.next()
		if string(m["jsonrpc"]) != `"2.0"` || m.code() != tt.code || string(m["id"]) != tt.id {
			t.Errorf("%.60q: answer %.200s, want code %d and id %s", tt.line, m, tt.code, tt.id)
		}
		c.send("   ") // a blank line is no message
		c.ping(100 + i)
	}
}

// TestGuardBatch checks batches under a protocol version that has them: a valid batch is
// answered as a batch, notifications in it included; one repeating an id is refused whole
// and the server goes on (X17).
func TestGuardBatch(t *testing.T) {
	c := startRaw(t, Config{}, 4096, nil)
	c.initialize("2025-03-26")
	c.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`)
	var batch []rawMsg
	select {
	case line := <-c.lines:
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 ||
			string(batch[0]["id"]) != "2" || string(batch[1]["id"]) != "3" || batch[1]["result"] == nil {
			t.Fatalf("batch answer %s (%v), want the answers to 2 and 3", line, err)
		}
	case <-time.After(answerWait):
		t.Fatal("the batch was not answered")
	}
	c.send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	if m := c.next(); m.code() != codeInvalidRequest || string(m["id"]) != "null" {
		t.Errorf("a batch repeating an id: %s", m)
	}
	c.ping(5)
}

// TestGuardConcurrentWrites checks that the SDK's answers and the guard's errors, written
// from different goroutines, never interleave: every line the server writes is one JSON
// object, and every line sent is answered once.
func TestGuardConcurrentWrites(t *testing.T) {
	const n = 100
	c := startRaw(t, Config{}, 4096, nil)
	c.initialize("2025-06-18")
	go func() {
		for i := range n {
			c.in.Write(fmt.Appendf(nil, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\nnot json %d\n", 1000+i, i))
		}
	}()
	results, errs := map[string]bool{}, 0
	for range 2 * n {
		m := c.next()
		switch {
		case m["result"] != nil:
			results[string(m["id"])] = true
		case m.code() == codeParseError:
			errs++
		default:
			t.Errorf("unexpected answer %.200s", m)
		}
	}
	if len(results) != n || errs != n {
		t.Errorf("%d calls and %d bad lines answered, want %d of each", len(results), errs, n)
	}
}

// TestReadLine checks the line reader: lines are split at newlines, an overlong line is
// consumed whole but only its start kept, and a last line without a newline is read.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("y", 3*peekLen)
	r := bufio.NewReaderSize(strings.NewReader("ab\r\n"+long+"\nlast"), 16)
	want := []struct {
		line string
		over bool
		err  error
	}{{"ab\r", false, nil}, {long[:peekLen], true, nil}, {"last", false, io.EOF}}
	for _, w := range want {
		line, over, err := readLine(r, 2*peekLen)
		if string(line) != w.line || over != w.over || err != w.err {
			t.Errorf("readLine = %.20q (%d bytes), %v, %v; want %.20q, %v, %v", line, len(line), over, err, w.line, w.over, w.err)
		}
	}
}
