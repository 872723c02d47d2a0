package ptywright

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"ptywright/internal/proctree"
	"ptywright/internal/ptyio"
)

// Options configure a Session. The zero value of every optional field says
// what it does.
type Options struct {
	// Program is the executable, looked up in PATH when it has no slash.
	Program string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory; "" means the caller's.
	Dir string
	// Env overrides variables of the caller's environment. TERM is
	// xterm-256color unless set here.
	Env map[string]string
	// Size is the terminal size; zero rows or cols mean 24x80.
	Size Size
	// MaxCells is the session's cell budget: rows times cols may not
	// exceed it, at Start and on every Resize (ErrInvalidSize, field
	// "size"). 0 means DefaultMaxCells (1,000,000).
	MaxCells int
	// Scrollback is how many rows that scroll off the top of the screen are
	// kept for SnapshotOptions.Scrollback and Screen.Scrollback: 0 means
	// 3000 (see ScreenOptions.Scrollback), a negative number none.
	Scrollback int
	// Engine is the terminal emulator that parses the output; "" means
	// EngineVTCore. EngineXVT selects charmbracelet/x/vt (slower, and it
	// departs from tmux and xterm: see Engine).
	Engine Engine
	// TranscriptMaxChars bounds the in-memory transcript, in characters
	// (runes); 0 means 128 Ki, as the JSON-RPC reference specifies.
	TranscriptMaxChars int
	// RawTranscriptPath, when set, receives every byte the program writes,
	// unredacted. The file is created with mode 0600 and an existing file is
	// refused (ErrFileExists) unless RawTranscriptAppend is set.
	RawTranscriptPath   string
	RawTranscriptAppend bool
	// Output, when set, receives every byte the program writes as it
	// arrives, unredacted (e.g. a terminal for live pass-through). It is
	// written from the goroutine that parses the output: a slow writer
	// slows the session.
	Output io.Writer
	// CloseGrace is how long Close waits after SIGTERM before SIGKILL; 0
	// means 500ms. Detached descendants get the same grace after the group.
	CloseGrace time.Duration
	// KeepDetached leaves running, after Close, the processes the program
	// started that left its process group and terminal session (daemons
	// that called setsid or double-forked, such as a language server or
	// Codex's app-server daemon), for a caller who wants them to outlive
	// the session. By default Close ends them too on Linux: it finds them
	// by SessionMarkerEnv in their environment and by the process tree
	// when Close starts, and never touches a process another session or
	// anything else started. Elsewhere Close ends the group only.
	KeepDetached bool

	// Redactor redacts what the session's reads return when a read names
	// no redactor of its own: Snapshot, Transcript, OutputSince, the
	// evidence of Wait, the recording (unless RecordRedactor or RecordRaw
	// say otherwise) and the reads of an ExtensionHandle over the session
	// (unless HandleOptions.Redactor does). nil means DefaultRedactor;
	// NoRedaction() makes them raw.
	Redactor *Redactor

	// RecordPath, when set, records the session as an asciicast v2 file
	// (output, input sent through Send, resizes, transcript markers) that
	// Replay and the asciinema player play back. The file is created with
	// mode 0600; an existing file is refused (ErrFileExists). It is
	// complete once Close returns.
	RecordPath string
	// RecordRaw records secrets as they are; by default the recording is
	// redacted with RecordRedactor.
	RecordRaw bool
	// RecordRedactor redacts the recording; nil means Redactor.
	RecordRedactor *Redactor
}

// ExitStatus says how the child ended.
type ExitStatus struct {
	// Code is the exit code, or -1 when a signal ended the child.
	Code int `json:"code"`
	// Signal names the signal that ended the child, if any.
	Signal string `json:"signal,omitempty"`
	// Err is set when the child could not be waited for.
	Err error `json:"-"`
}

// Session is a program running on a pseudo-terminal, with its parsed screen
// and a bounded transcript of its output.
//
// One goroutine reads the PTY and feeds what it read to the screen and the
// transcript under one lock, with a second that parses while it reads on
// under a flood (pty_read.go); every change advances the sequence and wakes
// every waiter at once.
// Close must be called to reap the child and stop the goroutines.
type Session struct {
	opts   Options
	red    *Redactor // opts.Redactor, nil resolved: what reads that name none redact with
	proc   *process
	marker string // this session's entry in SessionMarkerEnv
	since  uint64 // the child's start time, where the platform tells it
	screen *Screen
	start  time.Time

	pump *ptyio.Pump    // the PTY's output on its way to feed (pty_read.go)
	stop chan struct{}  // closed by Close: ends the reply writer
	wg   sync.WaitGroup // the reader and the waiter

	// Terminal replies go to the child through a writer goroutine that the
	// first reply starts (queueReply): a program that asks the terminal
	// nothing costs no goroutine and no queue for them. Close stops it.
	replyMu      sync.Mutex
	replies      chan []byte   // the replies on their way; nil until the first
	replyDone    chan struct{} // closed when the writer has stopped
	repliesEnded bool          // Close began: no writer starts any more

	// wsem is held by the one write to the PTY under way; writers wait
	// for it in arrival order, each with its own context.
	wsem chan struct{}

	// The last input written, for LastInput and the echo of the next
	// (echo.go).
	inputState

	mu         sync.Mutex
	tr         *transcript
	changed    chan struct{} // closed and replaced on every change someone watches
	watched    bool          // changed was handed out since it was made (pty_read.go)
	lastChange time.Time     // the last output, resize or exit
	lastOutput time.Time     // when the child last wrote (OutputSince holds back after it)
	vis        visibleState  // the last visible change (visible.go)
	exit       *ExitStatus   // set once the child is reaped
	exited     chan struct{} // closed once the child is reaped and drained
	readerDone chan struct{} // closed when the reader stops
	// childGone is closed once the child has exited, before exited: from
	// then on the reader's EIO means the end of the output (ptyio.Drain).
	childGone chan struct{}
	closed    bool

	closeOnce sync.Once
	closeErr  error
	raw       *os.File
	rec       *recorder // nil unless Options.RecordPath
	pub       publisher // the buses told of its core events (events.go)
}

// Start spawns opts.Program on a new PTY.
func Start(opts Options) (*Session, error) {
	if opts.Program == "" {
		return nil, fmt.Errorf("ptywright: start: program is required")
	}
	size := opts.Size.WithDefaults()
	if err := checkMaxCells(opts.MaxCells); err != nil {
		return nil, fmt.Errorf("ptywright: start: %w", err)
	}
	if err := size.ValidateCells(opts.MaxCells); err != nil {
		return nil, fmt.Errorf("ptywright: start: %w", err)
	}
	if opts.TranscriptMaxChars < 0 {
		return nil, fmt.Errorf("ptywright: start: transcript_max_chars must not be negative")
	}
	if err := opts.Engine.Validate(); err != nil {
		return nil, fmt.Errorf("ptywright: start: %w", err)
	}
	s := &Session{
		opts:       opts,
		red:        opts.Redactor.orDefault(),
		marker:     proctree.NewMarker(),
		start:      time.Now(),
		wsem:       make(chan struct{}, 1),
		stop:       make(chan struct{}),
		tr:         newTranscript(opts.TranscriptMaxChars),
		changed:    make(chan struct{}),
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		childGone:  make(chan struct{}),
	}
	s.initReader()
	s.opts.Size = size
	s.lastChange = s.start
	s.vis.at = s.start
	var rawCreated bool
	if opts.RawTranscriptPath != "" {
		f, created, err := openRawSink(opts.RawTranscriptPath, opts.RawTranscriptAppend)
		if err != nil {
			return nil, fmt.Errorf("ptywright: start: %w", err)
		}
		s.raw, rawCreated = f, created
	}
	env := buildEnv(opts.Env)
	rec, err := openRecording(opts, size, env) // nil without RecordPath
	if err != nil {
		s.dropRaw(rawCreated)
		return nil, fmt.Errorf("ptywright: start: %w", err)
	}
	s.rec = rec
	screen, err := newScreen(ScreenOptions{Size: size, Scrollback: opts.Scrollback, Engine: opts.Engine, MaxCells: opts.MaxCells}, s.queueReply)
	if err != nil {
		s.dropRaw(rawCreated)
		s.abortRecording()
		return nil, err
	}
	s.screen = screen
	env = proctree.WithMarker(env, s.marker) // After the recording: its header shows the caller's env.
	proc, err := startProcess(opts.Program, opts.Args, opts.Dir, env, size)
	if err != nil {
		_ = screen.Close() // Best effort: already failing.
		s.dropRaw(rawCreated)
		s.abortRecording()
		if outOfResources(err) {
			return nil, fmt.Errorf("%w: %w", ErrCapacity, err)
		}
		return nil, fmt.Errorf("ptywright: %w", err)
	}
	s.proc = proc
	s.since = proctree.StartTime(proc.pid())
	s.wg.Add(2)
	go s.readLoop()
	go s.waitLoop()
	return s, nil
}

func buildEnv(overrides map[string]string) []string {
	env := os.Environ()
	if _, ok := overrides["TERM"]; !ok {
		overrides = mergeEnv(overrides, map[string]string{"TERM": "xterm-256color"})
	}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := cutEnv(kv)
		if _, ok := overrides[name]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range keys {
		out = append(out, k+"="+overrides[k])
	}
	return out
}

func mergeEnv(a, b map[string]string) map[string]string {
	m := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func cutEnv(kv string) (name, value string, ok bool) {
	for i := 1; i < len(kv); i++ { // From 1: Windows has "=C:" entries.
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// waitLoop reaps the child and marks the session exited once the output the
// child left behind has been read.
func (s *Session) waitLoop() {
	defer s.wg.Done()
	st := s.proc.wait()
	// The reader waits out an EIO while the child runs (the slave may be
	// opened again); now one ends the output. The deadline wakes a read
	// waiting so.
	close(s.childGone)
	_ = s.proc.master.SetReadDeadline(time.Unix(1, 0)) // Closed already: the reader has stopped.
	// And a write waiting for the child to read gives up: nobody will.
	_ = s.proc.master.SetWriteDeadline(time.Unix(1, 0)) // Closed already: no write can wait.
	// A grandchild may keep the tty open, so EOF may never come: give the
	// reader a short while to drain what the child wrote before it exited.
	t := time.NewTimer(250 * time.Millisecond)
	select {
	case <-s.readerDone:
	case <-t.C:
	}
	t.Stop()
	// session:exited is published before anyone can see the exit, so a
	// wait that returns on it finds the event already emitted.
	s.pub.exit(s.Sequence(), st, func() {
		s.mu.Lock()
		s.exit = &st
		close(s.exited)
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	})
}

// Send performs an action: input is written to the program, resize, kill,
// signal and mark_transcript act on the session. Perform does the same and
// says what was written.
func (s *Session) Send(ctx context.Context, a Action) error {
	_, err := s.Perform(ctx, a)
	return err
}

// Written is what Perform did: the bytes it wrote to the program (0 for
// actions that write none) and the screen's sequence as the write began.
// Every change after Sequence, the echo included, came after the write:
// pass it to After so a wait sees only what the input caused, or the
// whole Written to AfterInput to leave the input's own echo out too.
type Written struct {
	Bytes    int    `json:"bytes"`
	Sequence uint64 `json:"sequence"`
	// Echo is where the input's typed text is echoed, for ExcludeEcho;
	// the zero Echo for actions that write no input.
	Echo Echo `json:"-"`
	// Signalled says an interrupt was delivered as SIGINT to the
	// terminal's foreground process group, as the line discipline would
	// deliver a ^C, because the ^C could not be written (another write held
	// the terminal's input, or the kernel took no input for 100 ms): it
	// would never have arrived. Bytes is 0 then.
	Signalled bool `json:"signalled,omitempty"`
}

// Perform performs an action like Send and reports what it wrote.
//
// Writes to the program go one at a time, in the order they come, each
// within its own ctx: one that cannot finish (a program that stopped
// reading) ends at ctx's deadline, or at the child's exit or Close, with an
// *InputError saying how many bytes went in. An interrupt whose ^C cannot
// be written (another write under way, or none taken for 100 ms) is
// delivered as the line discipline would deliver a ^C when the terminal
// turns it into a signal (ISIG set): SIGINT to the foreground process
// group (Written.Signalled); otherwise it waits its turn like any input.
func (s *Session) Perform(ctx context.Context, a Action) (Written, error) {
	if err := a.Validate(); err != nil {
		return Written{}, err
	}
	if s.isClosed() {
		return Written{}, ErrSessionClosed
	}
	w := Written{Sequence: s.Sequence()}
	switch a.Type {
	case ActionResize:
		return w, s.Resize(a.Size)
	case ActionKill:
		return w, s.Kill()
	case ActionSignal:
		return w, s.Signal(a.Signal)
	case ActionMarkTranscript:
		return w, s.Mark(a.Label)
	}
	if isDone(s.exited) {
		// The kernel would swallow the bytes without complaint.
		return w, fmt.Errorf("%s input after the exit: %w", a.Type, ErrProcessExited)
	}
	b, ok := a.Input(s.screen.applicationCursor())
	if !ok {
		return w, fmt.Errorf("ptywright: action %q has no input bytes", a.Type)
	}
	if a.Type == ActionInterrupt {
		w, err := s.interrupt(ctx, s.startInput(a, b), b)
		return s.inputWritten(w), err
	}
	// The write's turn first: where the echo goes, and whether it goes on
	// the last input's line, are this input's only once no other write
	// can come between.
	if err := s.takeWriteTurn(ctx, len(b)); err != nil {
		return Written{Sequence: s.screen.Sequence()}, err
	}
	defer func() { <-s.wsem }()
	w = s.startInput(a, b)
	s.rec.input(b) // Recorded as sent, before the echo can come back.
	n, err := s.writeHeld(ctx, b)
	w.Bytes = n
	if n == 0 {
		return w, err // Nothing went in: not an input a wait can follow.
	}
	return s.inputWritten(w), err
}

// Resize changes the terminal size; the program receives SIGWINCH, and
// the buses the session publishes on (PublishEvents) get session:resized
// when the size differs from the one before.
func (s *Session) Resize(size Size) error {
	if err := size.ValidateCells(s.opts.MaxCells); err != nil {
		return err
	}
	if s.isClosed() {
		return ErrSessionClosed
	}
	return s.pub.resize(func() (Size, Size, error) {
		before := s.screen.Size()
		return before, size, s.applyResize(size)
	}, s.Sequence)
}

func (s *Session) applyResize(size Size) error {
	defer s.rec.flush() // After the unlock: deferred calls run last first.
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.proc.setSize(size); err != nil {
		return fmt.Errorf("ptywright: resize: %w", err)
	}
	if err := s.screen.Resize(size); err != nil {
		return err
	}
	s.rec.resize(size)
	s.notifyLocked()
	s.visibleChangedLocked()
	return nil
}

// Signal delivers sig to the program's whole process group; once the
// program exited it signals nobody and returns ErrProcessExited.
func (s *Session) Signal(sig Signal) error {
	if s.isClosed() {
		return ErrSessionClosed
	}
	if err := s.proc.signalGroup(sig, false); err != nil {
		return fmt.Errorf("ptywright: signal %s: %w", sig, err)
	}
	return nil
}

// Kill sends SIGKILL to the program's process group. The session stays
// readable; Close still has to be called.
//
// Once the program has exited (killed or on its own), the session holds
// what can still be read of it: its screen (the grid, and a scrollback
// bounded by Options.Scrollback: about 3 MB at most by default), its
// transcript (at most Options.TranscriptMaxChars characters) and its exit
// status. The buffers its output was read through are let go at the exit.
func (s *Session) Kill() error { return s.Signal(SignalKill) }

// Mark records the transcript's current position under label.
func (s *Session) Mark(label string) error {
	defer s.rec.flush() // After the unlock.
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tr.Mark(label); err != nil {
		return err
	}
	s.rec.marker(label)
	return nil
}

// Pid returns the child's process id (also its process group id).
func (s *Session) Pid() int { return s.proc.pid() }

// Exited is closed once the child has exited and its output has been read.
func (s *Session) Exited() <-chan struct{} { return s.exited }

// ExitStatus reports how the child ended; ok is false while it runs.
func (s *Session) ExitStatus() (st ExitStatus, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exit == nil {
		return ExitStatus{}, false
	}
	return *s.exit, true
}

// Sequence counts the changes the screen has seen. It only grows.
func (s *Session) Sequence() uint64 { return s.screen.Sequence() }

// Screen returns the session's live screen.
func (s *Session) Screen() *Screen { return s.screen }

// Size returns the terminal size.
func (s *Session) Size() Size { return s.screen.Size() }

// Program returns the program the session started (Options.Program), as
// it was given.
func (s *Session) Program() string { return s.opts.Program }

// redactor is r, or the session's redactor (Options.Redactor) when r is
// nil.
func (s *Session) redactor(r *Redactor) *Redactor { return r.or(s.red) }

// Changed returns the current sequence and a channel closed at the next
// change (output, resize, exit or close), read together so that a change
// between the two cannot be missed. Observers such as the JSON-RPC server's
// notification watcher loop on it instead of polling: after the channel
// closes, call Changed again for the next one.
func (s *Session) Changed() (seq uint64, changed <-chan struct{}) {
	o := s.observe(observeNext)
	return o.seq, o.next
}
