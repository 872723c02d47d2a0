package rpc

import (
	"ptywright"
	"ptywright/contract"
	"ptywright/luahost"
	"ptywright/plugins"
)

// method is one entry of the method table: its handler and what
// rpc.discover says of it. They are one value so that no method is served
// undescribed; TestDiscoverParamsAreDecoded checks that params names the
// struct the handler really decodes.
type method struct {
	handler handlerFunc
	summary string
	// params is a zero value of the struct the handler decodes its params
	// into; nil when it takes none.
	params any
	// result is a zero value of what it answers (a pointer when the answer
	// may be null).
	result any
	// errors are the codes it answers with.
	errors []int64
}

// The sets of codes methods share.
var (
	// errsParams: a read or a registry query; only params can be wrong
	// (decodeParams refuses an unknown member everywhere).
	errsParams = []int64{CodeInvalidParams}
	// errsSession: acting on a session's child, which may have exited or
	// been closed meanwhile.
	errsSession = []int64{CodeInvalidParams, CodeInternalError, CodeSessionClosed}
	// errsAdapterRead: an adapter read that runs no plugin code.
	errsAdapterRead = []int64{CodeInvalidParams, CodePermissionDenied}
	// errsAdapterCall: an adapter call that runs the plugin (classify) and
	// queues behind a running send, wait or turn.
	errsAdapterCall = []int64{CodeInvalidParams, CodeInternalError, CodeSessionClosed, CodePermissionDenied}
	// errsAdapterWait: a wait, which may time out, be cancelled, or no
	// longer match once the program exited.
	errsAdapterWait = []int64{CodeInvalidParams, CodeInternalError, CodeTimeout, CodeSessionClosed, CodePermissionDenied, CodeCancelled}
)

// methodTable maps every method name to its entry; capabilities and
// rpc.discover are derived from it. The extension layer's adapter.* and
// plugin.* are there when the server has a plugin registry.
func (s *Server) methodTable() map[string]method {
	t := map[string]method{
		"rpc.discover": {handler: s.discover, result: openRPC{}, errors: errsParams,
			summary: "The OpenRPC document of this server: every method it answers, its params, result and errors, and the notifications."},
		"server.capabilities": {handler: s.capabilities, result: Capabilities{}, errors: errsParams,
			summary: "Protocol metadata: the methods, notifications, framings, limits and error codes of this server."},
		"server.set_notifications": {handler: s.setNotifications, params: setNotificationsParams{}, result: notificationsResult{}, errors: errsParams,
			summary: "Turn this connection's notifications on or off, scoped to sessions or adapters; events adds adapter.event."},
		"session.create": {handler: s.sessionCreate, params: createParams{}, result: sessionResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeCapacity},
			summary: "Start a program on a new PTY session."},
		"session.list": {handler: s.sessionList, params: listParams{}, result: sessionListResult{}, errors: errsParams,
			summary: "The ids of the sessions the server holds, adapters' included."},
		"session.input": {handler: s.sessionInput, params: inputParams{}, result: inputResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeSessionClosed, CodeIntentRefused},
			summary: "Perform one action on a session: type, paste, press a key, resize, signal, mark the transcript."},
		"session.run": {handler: s.sessionRun, params: runParams{}, result: runResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeTimeout, CodeSessionClosed},
			summary: "Run a command at the prompt of a session created with a preset; answers its output (without echo and prompt) and status."},
		"session.wait": {handler: s.sessionWait, params: waitParams{}, result: waitResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeTimeout, CodeSessionClosed},
			summary: "Wait until a matcher matches the session's screen, transcript or exit; answers with the evidence."},
		"session.snapshot": {handler: s.sessionSnapshot, params: snapshotParams{}, result: ptywright.ScreenSnapshot{}, errors: errsParams,
			summary: "The session's screen now: text, cells (or runs of one style, or none), cursor, modes, title, of every row or some; redacted unless redact is false."},
		"session.transcript": {handler: s.sessionTranscript, params: readParams{}, result: transcriptResult{}, errors: errsParams,
			summary: "The session's retained transcript; redacted unless redact is false."},
		"session.mouse": {handler: s.sessionMouse, params: mouseParams{}, result: mouseResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeSessionClosed, CodeIntentRefused},
			summary: "A mouse gesture (click, double_click, press, release, move, drag, wheel) at a cell or on a text or regex on screen, as xterm reports it; -32006 when the program has not enabled mouse reporting."},
		"session.control": {handler: s.sessionControl, params: controlParams{}, result: controlResult{}, errors: []int64{CodeInvalidParams, CodeIntentRefused},
			summary: "A person takes the terminal of a session (take) or gives it back (release): meanwhile adapter.send, adapter.turn and other connections' session.input answer -32006."},
		"session.resize": {handler: s.sessionResize, params: resizeParams{}, result: resizedResult{}, errors: errsSession,
			summary: "Change the session's terminal size."},
		"session.kill": {handler: s.sessionKill, params: sessionParams{}, result: killedResult{}, errors: errsSession,
			summary: "SIGKILL the session's process group; the session stays readable until session.close."},
		"session.close": {handler: s.sessionClose, params: sessionParams{}, result: closedResult{}, errors: []int64{CodeInvalidParams, CodeInternalError},
			summary: "End the session's program and forget the session."},
	}
	if s.opts.Plugins != nil {
		for name, m := range s.adapterMethods() {
			t[name] = m
		}
		for name, m := range s.pluginMethods() {
			t[name] = m
		}
	}
	return t
}

func (s *Server) adapterMethods() map[string]method {
	return map[string]method{
		"adapter.list": {handler: s.adapterList, result: adapterListResult{}, errors: errsParams,
			summary: "The manifests of the plugins adapter.start can instantiate (kind adapter)."},
		"adapter.live": {handler: s.adapterLive, result: adapterLiveResult{}, errors: errsParams,
			summary: "The adapters the server holds, sorted by id."},
		"adapter.start": {handler: s.adapterStart, params: startParams{}, result: startResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodePermissionDenied, CodeCapacity},
			summary: "Start a plugin's adapter on a new session and classify its first screen."},
		"adapter.resume": {handler: s.adapterResume, params: resumeParams{}, result: startResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodePermissionDenied, CodeCapacity},
			summary: "adapter.start, closing prior_adapter first once the new one can start."},
		"adapter.state": {handler: s.adapterState, params: adapterParams{}, result: stateResult{}, errors: errsAdapterCall,
			summary: "Classify the adapter's screen now."},
		"adapter.send": {handler: s.adapterSend, params: sendParams{}, result: sendResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeTimeout, CodeSessionClosed, CodePermissionDenied, CodeIntentRefused, CodeDialogMismatch},
			summary: "Send one of the plugin's intents; answers the state after it and a receipt of what became of it."},
		"adapter.wait": {handler: s.adapterWait, params: adapterWaitParams{}, result: adapterWaitResult{}, errors: errsAdapterWait,
			summary: "Wait for one of the plugin's wait matchers (default wait_turn_matcher)."},
		"adapter.turn": {handler: s.adapterTurn, params: turnParams{}, result: adapterWaitResult{}, errors: append(errsAdapterWait[:len(errsAdapterWait):len(errsAdapterWait)], CodeIntentRefused, CodeDialogMismatch),
			summary: "Send an intent and wait, holding the adapter's lock across both."},
		"adapter.cancel_wait": {handler: s.adapterCancelWait, params: cancelWaitParams{}, result: cancelWaitResult{}, errors: errsParams,
			summary: "Cancel the wait or turn bound to wait_id, from any connection; idempotent."},
		"adapter.snapshot": {handler: s.adapterSnapshot, params: adapterSnapshotParams{}, result: ptywright.ScreenSnapshot{}, errors: errsAdapterRead,
			summary: "The adapter's screen, as session.snapshot; does not wait for a turn in progress."},
		"adapter.transcript": {handler: s.adapterTranscript, params: adapterReadParams{}, result: transcriptResult{}, errors: errsAdapterRead,
			summary: "The adapter's transcript, as session.transcript."},
		"adapter.inspect": {handler: s.adapterInspect, params: adapterReadParams{}, result: inspectResult{}, errors: errsAdapterCall,
			summary: "Classify and answer the texts the classifier saw: plain, body, status, transcript tail, projected dialog."},
		"adapter.explain": {handler: s.adapterExplain, params: explainParams{}, result: explainResult{}, errors: errsAdapterCall,
			summary: "The plugin's account of a classification: now, or at a held sequence."},
		"adapter.extract": {handler: s.adapterExtract, params: extractParams{}, result: ptywright.ExtractResult{}, errors: errsAdapterCall,
			summary: "Extract an answer from the projected dialog by regex or sentinels."},
		"adapter.lifecycle": {handler: s.adapterLifecycle, params: adapterParams{}, result: (*contract.LifecycleStatus)(nil), errors: errsAdapterRead,
			summary: "The adapter's turn lifecycle."},
		"adapter.policy": {handler: s.adapterPolicy, params: adapterParams{}, result: policyResult{}, errors: errsAdapterRead,
			summary: "The policy rules in force for the adapter, in the order they decide its permission dialogs."},
		"adapter.close": {handler: s.adapterClose, params: adapterParams{}, result: closedResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodePermissionDenied},
			summary: "Close the adapter and its session."},
	}
}

func (s *Server) pluginMethods() map[string]method {
	return map[string]method{
		"plugin.capabilities": {handler: s.pluginCapabilities, result: plugins.Capabilities{}, errors: errsParams,
			summary: "What the plugin host runs: runtimes, kinds, permissions, built-in manifests, call budgets."},
		"plugin.validate_manifest": {handler: s.pluginValidateManifest, params: validateManifestParams{}, result: validResult{}, errors: errsParams,
			summary: "Check a manifest in its JSON form as a loaded one is checked."},
		"plugin.describe": {handler: s.pluginDescribe, params: pluginParams{}, result: luahost.Description{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeTimeout},
			summary: "A plugin's catalog: manifest, intents, wait matchers, states."},
		"plugin.load": {handler: s.pluginLoad, params: loadParams{}, result: loadResult{}, errors: []int64{CodeInvalidParams, CodePermissionDenied},
			summary: "Load a plugin from a manifest file (the server must allow plugin loading)."},
		"plugin.unload": {handler: s.pluginUnload, params: pluginParams{}, result: unloadedResult{}, errors: []int64{CodeInvalidParams, CodePermissionDenied},
			summary: "Unload a loaded plugin no live adapter runs on (the server must allow plugin loading)."},
		"plugin.call": {handler: s.pluginCall, params: callParams{}, result: luahost.HookResult{}, errors: []int64{CodeInvalidParams, CodeInternalError, CodeTimeout, CodePermissionDenied, CodeIntentRefused},
			summary: "Call an exported function of a loaded plugin, or of an inline script (the server must allow plugin loading)."},
	}
}

// The results that are one flag, always true.
type (
	resizedResult struct {
		Resized bool `json:"resized"`
	}
	killedResult struct {
		Killed bool `json:"killed"`
	}
	closedResult struct {
		Closed bool `json:"closed"`
		// Exit is how the program ended (additive): its exit code, or -1
		// and the signal when one ended it, the close's own included.
		Exit *ptywright.ExitStatus `json:"exit,omitempty"`
	}
	validResult struct {
		Valid bool `json:"valid"`
	}
	unloadedResult struct {
		Unloaded bool `json:"unloaded"`
	}
)
