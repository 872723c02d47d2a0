package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"ptywright/manifest"
)

// fuzzFrames reads every frame of data with framing f and checks what the
// server would do with each: frames are bounded, every framing error is a
// parse or invalid-request error, parsing never panics, and every response
// the server would send is one valid JSON value of the JSON-RPC shape.
func fuzzFrames(t *testing.T, f Framing, data []byte) [][]byte {
	r := f.Reader(bytes.NewReader(data))
	var frames [][]byte
	// Every ReadFrame consumes input or ends, so this bound is generous.
	for range len(data) + 2 {
		frame, err := r.ReadFrame()
		if errors.Is(err, io.EOF) {
			return frames
		}
		var fe *FrameError
		if errors.As(err, &fe) {
			if c := codeOf(err); c != CodeParseError && c != CodeInvalidRequest {
				t.Fatalf("framing error with code %d: %v", c, err)
			}
			checkResponse(t, encodeResponse(nil, nil, err))
			if fe.Fatal {
				return frames
			}
			continue
		}
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if len(frame) > MaxFrameBytes {
			t.Fatalf("frame of %d bytes passed the limit", len(frame))
		}
		frames = append(frames, frame)
		items, _ := parseFrame(frame)
		for _, it := range items {
			if it.err != nil {
				if c := codeOf(it.err); c != CodeParseError && c != CodeInvalidRequest {
					t.Fatalf("request error with code %d: %v", c, it.err)
				}
				checkResponse(t, encodeResponse(it.req.id, nil, it.err))
				continue
			}
			if it.req.method == "" {
				t.Fatal("a valid request without a method")
			}
			if it.req.isCall() {
				checkResponse(t, encodeResponse(it.req.id, map[string]string{"echo": it.req.method}, nil))
			}
		}
	}
	t.Fatal("the reader did not end")
	return nil
}

func checkResponse(t *testing.T, b []byte) {
	t.Helper()
	if !json.Valid(b) || bytes.IndexByte(b, '\n') >= 0 {
		t.Fatalf("invalid response frame %q", b)
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	if m.JSONRPC != "2.0" || len(m.ID) == 0 || (m.Error == nil) == (m.Result == nil) {
		t.Fatalf("not a JSON-RPC response: %q", b)
	}
}

func framingSeeds(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server.capabilities"}`,
		`{"jsonrpc":"2.0","id":2,"method":"session.create","params":{"program":"/bin/sh","args":["-lc","printf ready"],"rows":24,"cols":80}}`,
		`{"jsonrpc":"2.0","id":5,"method":"session.wait","params":{"session":"s1","matcher":{"type":"contains_text","value":"ready"},"timeout_ms":5000}}`,
		`[{"jsonrpc":"2.0","id":"a","method":"session.list"},{"jsonrpc":"2.0","method":"session.list"},7]`,
		`[]`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		"Content-Length: 48\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session.list\"}",
		"Content-Length: x\r\n\r\n{}content-length: 2\r\n\r\n{}",
		"Content-Length: 99999999999\r\n\r\n",
		"\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\r\n",
	} {
		f.Add([]byte(s))
	}
}

func FuzzNDJSONFraming(f *testing.F) {
	framingSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		frames := fuzzFrames(t, NDJSON, data)
		for _, fr := range frames {
			if bytes.IndexByte(fr, '\n') >= 0 || len(bytes.TrimSpace(fr)) == 0 {
				t.Fatalf("bad ndjson frame %q", fr)
			}
		}
		// What the writer writes, the reader reads back unchanged.
		var buf bytes.Buffer
		w := NDJSON.Writer(&buf)
		var want [][]byte
		for _, fr := range frames {
			if bytes.HasSuffix(fr, []byte{'\r'}) || len(bytes.TrimSpace(fr)) == 0 {
				continue // CR before the newline and blank lines are framing, not payload
			}
			if err := w.WriteFrame(fr); err != nil {
				t.Fatal(err)
			}
			want = append(want, fr)
		}
		got := fuzzFrames(t, NDJSON, buf.Bytes())
		if len(got) != len(want) {
			t.Fatalf("round trip: %d frames, want %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("round trip frame %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}

func FuzzLSPFraming(f *testing.F) {
	framingSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFrames(t, LSP, data)
		// Any payload survives a round trip, whatever bytes it holds.
		var buf bytes.Buffer
		w := LSP.Writer(&buf)
		if err := w.WriteFrame(data); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFrame(data); err != nil {
			t.Fatal(err)
		}
		r := LSP.Reader(&buf)
		for range 2 {
			got, err := r.ReadFrame()
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("round trip: %q, %v; want %q", got, err, data)
			}
		}
		if _, err := r.ReadFrame(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the frames: %v, want EOF", err)
		}
	})
}

// paramKinds are the params FuzzParams decodes, chosen by the first byte.
var paramKinds = []struct {
	method string
	new    func() any
	check  func(any) error
}{
	{"session.create", func() any { return &createParams{} }, nil},
	{"session.input", func() any { return &inputParams{} }, func(v any) error { return v.(*inputParams).Action.Validate() }},
	{"session.wait", func() any { return &waitParams{} }, func(v any) error { return v.(*waitParams).Matcher.Validate() }},
	{"session.snapshot", func() any { return &snapshotParams{} }, func(v any) error {
		sp := v.(*snapshotParams)
		if _, err := (snapshotShape{Cells: sp.Cells, CellFormat: sp.CellFormat, Rows: sp.Rows}).options(); checkClass(err) != nil {
			return err
		}
		_, err := readParams{Redact: sp.Redact, Redaction: sp.Redaction}.redactor()
		return checkClass(err)
	}},
	{"session.resize", func() any { return &resizeParams{} }, nil},
	{"server.set_notifications", func() any { return &setNotificationsParams{} }, nil},
	{"adapter.start", func() any { return &startParams{} }, func(v any) error {
		p := v.(*startParams)
		_, err := targetOptions(*p, manifest.Manifest{Name: "p", DefaultTarget: &manifest.DefaultTarget{Program: "sh", RequiredEnv: []string{"PTYWRIGHT_FUZZ_UNSET"}}})
		return checkClass(err)
	}},
	{"adapter.resume", func() any { return &resumeParams{} }, nil},
	{"adapter.send", func() any { return &sendParams{} }, func(v any) error {
		p := v.(*sendParams)
		return checkClass(checkIntent("intent", p.Intent, "params", p.Params))
	}},
	{"adapter.wait", func() any { return &adapterWaitParams{} }, func(v any) error {
		p := v.(*adapterWaitParams)
		if err := checkClass(checkIntent("", p.Intent, "params", p.Params)); err != nil {
			return err
		}
		_, err := waitTimeout("timeout_ms", p.TimeoutMs, 0)
		return checkClass(err)
	}},
	{"adapter.turn", func() any { return &turnParams{} }, func(v any) error {
		p := v.(*turnParams)
		return checkClass(checkIntent("send.intent", p.Send.Intent, "send.params", p.Send.Params))
	}},
	{"adapter.cancel_wait", func() any { return &cancelWaitParams{} }, nil},
	{"adapter.snapshot", func() any { return &adapterSnapshotParams{} }, func(v any) error {
		p := v.(*adapterSnapshotParams)
		if _, err := (snapshotShape{Cells: p.Cells, CellFormat: p.CellFormat, Rows: p.Rows}).options(); checkClass(err) != nil {
			return err
		}
		_, err := readParams{Redact: p.Redact, Redaction: p.Redaction}.redactor()
		return checkClass(err)
	}},
	{"adapter.extract", func() any { return &extractParams{} }, nil},
	{"plugin.validate_manifest", func() any { return &validateManifestParams{} }, func(v any) error {
		raw := v.(*validateManifestParams).Manifest
		if _, err := manifest.ParseJSON(raw); err != nil && codeOf(err) != CodeInvalidParams {
			return err
		}
		return nil
	}},
	{"plugin.load", func() any { return &loadParams{} }, nil},
}

// checkClass lets only invalid-params errors through.
func checkClass(err error) error {
	if err != nil && codeOf(err) != CodeInvalidParams {
		return err
	}
	return nil
}

func FuzzParams(f *testing.F) {
	for i, s := range []string{
		`{"program":"/bin/sh","args":["-lc","printf ready"],"rows":24,"cols":80,"env":{"A":"1"},"cwd":"/","transcript_max_chars":10,"raw_transcript_path":"x","raw_transcript_append":true}`,
		`{"session":"s1","action":{"type":"text","value":"help\n"}}`,
		`{"session":"s1","matcher":{"type":"any","value":[{"type":"contains_text","value":"ready"},{"type":"screen_stable","value":{"min_ms":250}},{"type":"lua","value":{"plugin":"p","predicate":"f","params":{"anchor":"ready"}}}]},"timeout_ms":5000}`,
		`{"session":"s1","redact":false,"redaction":{"enabled":true,"replacement":"#","extra_literals":["a"],"extra_regexes":["b+"]},"cells":true,"cell_format":"runs","rows":{"from":1,"to":3},"scrollback":true}`,
		`{"session":"s1","rows":40,"cols":120,"pixel_width":0,"pixel_height":0}`,
		`{"enabled":true,"adapters":["e1"],"sessions":["s2"]}`,
		`{"plugin":"claude-code","program":"claude","args":["-p"],"cwd":"/","env":{"API_KEY":"x"},"rows":24,"cols":80,"pixel_width":0,"pixel_height":0,"record_path":"x.cast","record_raw":false}`,
		`{"plugin":"echo","prior_adapter":"e1","rows":30}`,
		`{"adapter":"e1","intent":"send_prompt","params":{"prompt":"hello"}}`,
		`{"adapter":"e1","intent":"wait_turn_matcher","params":{"completed_turn_stable_ms":300},"timeout_ms":120000,"wait_id":"3f0c"}`,
		`{"adapter":"e1","send":{"intent":"send_prompt","params":{"prompt":"hi"}},"wait":{"intent":"wait_lifecycle","params":{"state":"completed"},"timeout_ms":5000,"wait_id":"w"}}`,
		`{"wait_id":"3f0c"}`,
		`{"adapter":"e1","redact":true,"redaction":{"enabled":true,"extra_literals":["tok"]},"cell_format":"cells","rows":{"from":0}}`,
		`{"adapter":"e1","sentinels":["<<",">>"],"tail_chars":2000}`,
		`{"manifest":{"name":"echo","kind":"adapter","version":"0.1.0","runtime":"lua","entrypoint":"main.lua","permissions":["session.spawn"],"default_target":{"program":"/bin/sh","args":["-c","cat"]}}}`,
		`{"manifest_path":"testdata/plugins/turns/manifest.toml"}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	f.Add(uint8(1), []byte(`{"session":"s1","action":{"type":"resize","value":{"rows":1e9,"cols":"2"}}}`))
	f.Add(uint8(2), []byte(`{"session":"s1","matcher":{"type":"cursor_at","value":{"row":-1}},"timeout_ms":-5}`))
	f.Add(uint8(10), []byte(`{"adapter":"e1","send":{"params":[]},"wait":{"timeout_ms":1e99}}`))
	f.Add(uint8(13), []byte(`{"adapter":"e1","regex":"(","sentinels":null}`))
	f.Add(uint8(14), []byte(`{"manifest":"name = 'x'"}`))
	f.Fuzz(func(t *testing.T, kind uint8, params []byte) {
		k := paramKinds[int(kind)%len(paramKinds)]
		v := k.new()
		err := decodeParams(params, v)
		if err != nil {
			if codeOf(err) != CodeInvalidParams || !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("%s: error of code %d: %v", k.method, codeOf(err), err)
			}
			if len(err.Error()) <= len("invalid params: ") {
				t.Fatalf("%s: error names nothing: %q", k.method, err)
			}
			return
		}
		if k.check != nil {
			if err := k.check(v); err != nil {
				t.Fatalf("%s: decoded params do not validate: %v", k.method, err)
			}
		}
		// Accepted params encode and decode to the same value.
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", k.method, err)
		}
		again := k.new()
		if err := json.Unmarshal(raw, again); err != nil {
			t.Fatalf("%s: re-decoding %s: %v", k.method, raw, err)
		}
	})
}
