package rpc

import (
	"context"
	"reflect"
	"sort"

	"ptywright/internal/host"
)

// openRPCVersion is the version of the OpenRPC specification
// rpc.discover's document follows.
const openRPCVersion = "1.3.2"

// openRPCMetaSchema is the schema of an OpenRPC document, which the
// service discovery convention gives as rpc.discover's result.
const openRPCMetaSchema = "https://raw.githubusercontent.com/open-rpc/meta-schema/master/schema.json"

// openRPC is rpc.discover's result, an OpenRPC document built from the
// method table: every method the server answers, by name, with the
// schemas of its params and result reflected from the Go types its handler
// decodes and answers (schema.go).
type openRPC struct {
	OpenRPC    string            `json:"openrpc"`
	Info       openRPCInfo       `json:"info"`
	Methods    []openRPCMethod   `json:"methods"`
	Components openRPCComponents `json:"components"`
	// Notifications are what the server sends a client that subscribed
	// with server.set_notifications: OpenRPC has no notifications, so
	// they are an extension, each shaped as a method without a result.
	Notifications []openRPCMethod `json:"x-notifications"`
}

type openRPCInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

type openRPCMethod struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// ParamStructure is "by-name": params is an object (decodeParams
	// refuses an array).
	ParamStructure string              `json:"paramStructure"`
	Params         []contentDescriptor `json:"params"`
	Result         *contentDescriptor  `json:"result,omitempty"`
	Errors         []openRPCError      `json:"errors,omitempty"`
	// Permissions are what an adapter's manifest must grant the method
	// (host.Permissions).
	Permissions []string `json:"x-permissions,omitempty"`
}

// contentDescriptor is OpenRPC's name for a named param or result.
type contentDescriptor struct {
	Name     string  `json:"name"`
	Required bool    `json:"required"`
	Schema   *schema `json:"schema"`
}

type openRPCError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

type openRPCComponents struct {
	Schemas map[string]*schema `json:"schemas"`
}

// notification is one entry of the notification table: what the server
// sends, and what rpc.discover says of it.
type notification struct {
	name    string
	summary string
	params  any // a zero value of the params' type
	// plugins: sent only by a server with a plugin registry.
	plugins bool
}

// notificationTable lists every notification; capabilities and
// rpc.discover are derived from it.
var notificationTable = []notification{
	{name: notifyEvent, params: eventParams{},
		summary: "A core event (session:*, adapter:state_changed) or a plugin's event, for a client subscribed with events: true. Queued in order, never coalesced."},
	{name: notifyLifecycle, params: lifecycleParams{}, plugins: true,
		summary: "An adapter's turn lifecycle changed."},
	{name: notifyChanged, params: changedParams{},
		summary: "The session's screen advanced; sequence is its sequence now. Coalesced."},
	{name: notifyExited, params: exitedParams{},
		summary: "The session's program exited. Sent once per session."},
	{name: notifyOutput, params: outputParams{},
		summary: "The session's output since the last one, redacted; dropped when some was lost to the transcript bound. Coalesced."},
}

// errorClasses are the classes a method's errors name, in the order
// rpc.discover lists them.
var errorClasses = []*Error{ErrInvalidParams, ErrInternal, ErrTimeout, ErrSessionClosed, ErrPermissionDenied, ErrCancelled, ErrIntentRefused, ErrCapacity, ErrDialogMismatch}

// discover is rpc.discover. The document depends only on the method table
// and the version, so it is built once.
func (s *Server) discover(_ context.Context, _ *conn, raw []byte) (any, error) {
	if err := decodeParams(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return s.discovery()
}

// buildDiscovery encodes the OpenRPC document of s.
func (s *Server) buildDiscovery() (preEncoded, error) {
	b, err := marshal(s.openRPC())
	if err != nil {
		return nil, encodingError(err)
	}
	return preEncoded(b), nil
}

// openRPC builds the OpenRPC document of s.
func (s *Server) openRPC() openRPC {
	g := newSchemaGen()
	doc := openRPC{
		OpenRPC: openRPCVersion,
		Info: openRPCInfo{Title: "ptywright", Version: s.opts.Version,
			Description: "Drive terminal programs through a PTY over JSON-RPC 2.0. docs/protocol.md is the reference."},
	}
	for _, name := range s.Methods() {
		m := s.methods[name]
		om := openRPCMethod{Name: name, Summary: m.summary, ParamStructure: "by-name", Params: g.params(m.params)}
		switch {
		case name == "rpc.discover":
			om.Result = &contentDescriptor{Name: "OpenRPC Schema", Required: true, Schema: &schema{Ref: openRPCMetaSchema}}
		case m.result == nil: // undescribed: any JSON value
			om.Result = &contentDescriptor{Name: "result", Required: true, Schema: &schema{}}
		default:
			rt := reflect.TypeOf(m.result)
			rs := g.of(rt, modeResult)
			if rt.Kind() == reflect.Pointer {
				rs = nullable(rs)
			}
			om.Result = &contentDescriptor{Name: "result", Required: true, Schema: rs}
		}
		for _, c := range errorClasses {
			for _, code := range m.errors {
				if code == c.Code {
					om.Errors = append(om.Errors, openRPCError{Code: c.Code, Message: c.Message})
					break
				}
			}
		}
		for _, p := range host.Permissions(name) {
			om.Permissions = append(om.Permissions, string(p))
		}
		doc.Methods = append(doc.Methods, om)
	}
	names := s.notifications()
	for _, n := range notificationTable {
		if i := sort.SearchStrings(names, n.name); i < len(names) && names[i] == n.name {
			p := reflect.TypeOf(n.params)
			doc.Notifications = append(doc.Notifications, openRPCMethod{Name: n.name, Summary: n.summary, ParamStructure: "by-name", Params: g.descriptors(p, modeResult)})
		}
	}
	sort.Slice(doc.Notifications, func(i, j int) bool { return doc.Notifications[i].Name < doc.Notifications[j].Name })
	doc.Components.Schemas = g.components
	return doc
}

// params describes a method's params struct (nil: none) member by member.
func (g *schemaGen) params(v any) []contentDescriptor {
	if v == nil {
		return []contentDescriptor{}
	}
	return g.descriptors(reflect.TypeOf(v), modeParams)
}

// descriptors describes the members of struct t as named params.
func (g *schemaGen) descriptors(t reflect.Type, mode schemaMode) []contentDescriptor {
	obj := g.object(t, mode)
	required := map[string]bool{}
	for _, name := range obj.Required {
		required[name] = true
	}
	var out []contentDescriptor
	for _, f := range fields(t) {
		out = append(out, contentDescriptor{Name: f.name, Required: required[f.name], Schema: obj.Properties[f.name]})
	}
	return out
}
