package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	"ptywright/internal/wire"
)

// request is one decoded JSON-RPC request or notification.
type request struct {
	// id is the raw id (a string, a number or null); nil for a
	// notification, which gets no response.
	id     json.RawMessage
	method string
	// params is the raw "params" member; nil when absent or null.
	params json.RawMessage
}

func (r request) isCall() bool { return r.id != nil }

// item is one entry of a frame: a request to run, or an error to answer
// straight away (err set, req.id holding whatever id could be read).
type item struct {
	req request
	err error
}

// parseFrame decodes a frame: one request, or a batch (a JSON array) of them.
// Per JSON-RPC 2.0, a frame that is not JSON is a parse error, a non-object
// is an invalid request, an empty batch is one invalid request (not an
// array), and each bad entry of a batch gets its own error in the batch's
// response.
func parseFrame(frame []byte) (items []item, batch bool) {
	if !utf8.Valid(frame) {
		return []item{{err: fmt.Errorf("%w: frame is not valid UTF-8", ErrParse)}}, false
	}
	if it, ok := parseRequestFast(frame); ok {
		return []item{it}, false // the common request, read in one pass (jsonscan.go)
	}
	return parseFrameSlow(frame)
}

// parseFrameSlow is parseFrame for any frame of valid UTF-8, with
// encoding/json.
func parseFrameSlow(frame []byte) (items []item, batch bool) {
	if !json.Valid(frame) {
		return []item{{err: fmt.Errorf("%w: frame is not valid JSON", ErrParse)}}, false
	}
	frame = bytes.TrimSpace(frame)
	if frame[0] != '[' {
		return []item{parseRequest(frame)}, false
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(frame, &raws); err != nil {
		return []item{{err: fmt.Errorf("%w: %v", ErrParse, err)}}, false
	}
	if len(raws) == 0 {
		return []item{{err: fmt.Errorf("%w: empty batch", ErrInvalidRequest)}}, false
	}
	items = make([]item, len(raws))
	for i, raw := range raws {
		items[i] = parseRequest(raw)
	}
	return items, true
}

// parseRequest validates one request object. Members are matched exactly;
// an unknown member makes the request invalid.
func parseRequest(raw json.RawMessage) item {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return item{err: fmt.Errorf("%w: a request must be a JSON object, got %s", ErrInvalidRequest, wire.Kind(raw))}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return item{err: fmt.Errorf("%w: %v", ErrInvalidRequest, err)}
	}
	var it item
	if id, ok := members["id"]; ok {
		switch wire.Kind(id) {
		case "a string", "a number", "null":
			it.req.id = id
		default:
			return item{err: fmt.Errorf("%w: id: must be a string, a number or null, got %s", ErrInvalidRequest, wire.Kind(id))}
		}
	}
	fail := func(format string, args ...any) item {
		it.err = fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
		return it
	}
	var version string
	if v, ok := members["jsonrpc"]; !ok {
		return fail(`jsonrpc: required ("2.0")`)
	} else if err := json.Unmarshal(v, &version); err != nil || version != wireVersion {
		return fail(`jsonrpc: must be "2.0"`)
	}
	m, ok := members["method"]
	if !ok {
		return fail("method: required")
	}
	if err := json.Unmarshal(m, &it.req.method); err != nil || wire.Kind(m) != "a string" {
		return fail("method: must be a string, got %s", wire.Kind(m))
	}
	if it.req.method == "" {
		return fail("method: must not be empty")
	}
	if p, ok := members["params"]; ok {
		switch wire.Kind(p) {
		case "an object", "an array":
			it.req.params = p
		case "null":
		default:
			return fail("params: must be an object or an array, got %s", wire.Kind(p))
		}
	}
	var unknown []string
	for name := range members {
		switch name {
		case "jsonrpc", "id", "method", "params":
		default:
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fail("unknown member %q (allowed: jsonrpc, id, method, params)", unknown[0])
	}
	return it
}

// encodeResponse builds a response frame: the result, or the error object
// for err. A result is spliced in rather than wrapped in a json.RawMessage:
// encoding/json would compact the whole result again, which for a snapshot
// with cells is most of the cost of the response.
func encodeResponse(id json.RawMessage, result any, err error) []byte {
	if id == nil {
		id = nullID
	}
	var idBuf bytes.Buffer
	if json.Compact(&idBuf, id) != nil {
		idBuf.Reset()
		idBuf.Write(nullID)
	}
	if a, ok := result.(appendedResult); ok && err == nil {
		b := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+idBuf.Len()+a.size)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, idBuf.Bytes()...)
		b = append(b, `,"result":`...)
		b = a.append(b)
		return append(b, '}')
	}
	if err == nil {
		raw, mErr := encodeResult(result)
		if mErr == nil {
			b := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+idBuf.Len()+len(raw))
			b = append(b, `{"jsonrpc":"2.0","id":`...)
			b = append(b, idBuf.Bytes()...)
			b = append(b, `,"result":`...)
			b = append(b, raw...)
			return append(b, '}')
		}
		err = encodingError(mErr)
	}
	b, mErr := marshal(wireResponse{JSONRPC: wireVersion, ID: idBuf.Bytes(), Error: toWire(err)})
	if mErr != nil {
		// An error object is strings and checked JSON: this cannot happen.
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error: encoding an error response"}}`)
	}
	return b
}

// encodingError is the error a result that JSON cannot hold is answered
// with, whether encodeResponse marshals it or a handler encoded it by hand
// (encodeWaitResult): the same wire error either way.
func encodingError(err error) error {
	return fmt.Errorf("%w: encoding the result: %v", ErrInternal, err)
}

// preEncoded is a result already encoded as compact JSON, spliced into the
// response as is.
type preEncoded []byte

// appendedResult is a result encoded into its response as the response is
// built, by append, which appends compact JSON (about size bytes) to dst
// and cannot fail: a result of megabytes (a snapshot with its cells) is
// written once, into the response, instead of encoded on its own and
// copied into it.
type appendedResult struct {
	size   int
	append func(dst []byte) []byte
}

func encodeResult(result any) ([]byte, error) {
	switch r := result.(type) {
	case preEncoded:
		return r, nil
	case appendedResult:
		return r.append(make([]byte, 0, r.size)), nil
	}
	return marshal(result)
}

// encodeNotification builds a notification frame.
func encodeNotification(method string, params any) ([]byte, error) {
	return marshal(wireNotification{JSONRPC: wireVersion, Method: method, Params: params})
}

// appendMarshal appends what marshal gives for v to dst.
func appendMarshal(dst []byte, v any) ([]byte, error) {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// marshal encodes compactly without HTML escaping: frames are read by
// programs, and '<' in screen text should stay '<'.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
