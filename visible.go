package ptywright

import (
	"hash/maphash"
	"time"
)

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

// watchStability registers a wait that needs precise stability times until
// the returned func is called.
func (s *Session) watchStability() (done func()) {
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
