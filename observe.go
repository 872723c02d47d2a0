package ptywright

import (
	"hash/maphash"
	"time"
)

// The one way a watcher reads a session between changes: observe, in one
// hold of Session.mu, with the channel closed at the next change (feed in
// pty_read.go closes it) and, for stability, the time of the last visible
// change. The output reaches a wait through pty_read.go (feed), this file
// and wait.go.

// observation is what observe read of a session in one hold of its lock.
type observation struct {
	seq    uint64
	closed bool
	// next is closed at the next change (output, resize, exit or close);
	// nil unless asked for (observeNext).
	next <-chan struct{}
	// lastVisible is when the visible screen last changed; zero unless
	// asked for (observeVisible), since bringing it up to date hashes the
	// screen when output came since.
	lastVisible time.Time
}

// observeWhat says what observe reads besides the sequence and closed.
type observeWhat uint8

const (
	observeNext    observeWhat = 1 << iota // the channel closed at the next change
	observeVisible                         // the time of the last visible change
)

// observe reads the session in one hold of its lock, so that a change
// after the sequence it returns cannot be missed by a watcher of next.
func (s *Session) observe(what observeWhat) observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := observation{seq: s.screen.Sequence(), closed: s.closed}
	if what&observeNext != 0 {
		s.watched = true // feed replaces the channel only when someone took it
		o.next = s.changed
	}
	if what&observeVisible != 0 {
		o.lastVisible = s.visibleChangedLocked()
	}
	return o
}

// visibleSeed keys the hash of what a person sees on the screen. It only
// has to be stable within the process.
var visibleSeed = maphash.MakeSeed()

// visibleState tracks when the visible screen (its text, cursor and modes)
// last changed, as opposed to when the program last wrote a byte: a program
// that redraws the same frame, or only moves the cursor away and back, is
// stable to a person and so to screen_stable. It is guarded by Session.mu.
//
// The reader hashes the screen after every chunk only while a wait needs
// stability (watchers > 0), so a flood nobody waits on costs nothing extra;
// otherwise the hash is brought up to date when someone asks, and a change
// between two looks is dated at the later one (never earlier than it
// happened).
type visibleState struct {
	key      uint64    // hash of the visible screen at seq
	seq      uint64    // the sequence key was computed at
	at       time.Time // when the visible screen last changed
	watchers int       // waits that need stability now
}

// visibleChangedLocked brings the visible state up to date and returns the
// time of the last visible change. The caller holds s.mu.
func (s *Session) visibleChangedLocked() time.Time {
	seq := s.screen.Sequence()
	if seq != s.vis.seq {
		if key := s.screen.visibleKey(); key != s.vis.key {
			s.vis.key = key
			s.vis.at = s.lastChange
		}
		s.vis.seq = seq
	}
	return s.vis.at
}

// trackStability makes the reader date every visible change at once (a
// wait that needs precise stability times) until the returned func is
// called.
func (s *Session) trackStability() (done func()) {
	s.mu.Lock()
	s.vis.watchers++
	s.visibleChangedLocked()
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.vis.watchers--
		s.mu.Unlock()
	}
}

// lastVisibleChange returns when the visible screen last changed.
func (s *Session) lastVisibleChange() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.visibleChangedLocked()
}

// StableFor reports how long the visible screen (text, cursor, modes) has
// been unchanged. Output that redraws the same frame does not reset it.
func (s *Session) StableFor() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(s.visibleChangedLocked())
}

// visibleKey hashes what a person sees: the rows' text, the cursor and the
// modes that change how the screen looks or takes keys.
func (s *Screen) visibleKey() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var h maphash.Hash
	h.SetSeed(visibleSeed)
	// The rows' text is PlainText and the number of rows: PlainText is
	// the rows joined by "\n", which no row holds, without the empty ones
	// at the end. One write instead of two per row.
	rows := len(s.linesLocked())
	h.WriteString(s.plain)
	row, col := s.eng.Cursor()
	m := s.eng.Modes()
	var flags byte
	for i, b := range []bool{m.CursorVisible, m.AltScreen, m.ApplicationCursor, m.ApplicationKeypad, m.BracketedPaste} {
		if b {
			flags |= 1 << i
		}
	}
	var buf [25]byte
	putUint64(buf[0:], uint64(rows))
	putUint64(buf[8:], uint64(row))
	putUint64(buf[16:], uint64(col))
	buf[24] = flags
	h.Write(buf[:])
	h.WriteString(m.Title)
	return h.Sum64()
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}
