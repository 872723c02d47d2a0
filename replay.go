package ptywright

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"ptywright/asciicast"
)

// ReplayOptions tune Replay and ReplayClassify.
type ReplayOptions struct {
	// Timing waits between events as they were recorded (idle gaps capped
	// at the header's idle_time_limit, as the asciinema player does); false
	// replays at full speed.
	Timing bool
	// Speed divides the recorded delays when Timing; 0 means 1.
	Speed float64
	// CompletedTurnStableMs is what ReplayClassify forwards to the
	// classifier as completed_turn_stable_ms; 0 means 300.
	CompletedTurnStableMs int64
}

func (o ReplayOptions) validate() error {
	if o.Speed < 0 || math.IsNaN(o.Speed) || math.IsInf(o.Speed, 0) {
		return &FieldError{Field: "speed", Reason: fmt.Sprintf("must be a finite number >= 0, got %v", o.Speed), Err: ErrInvalidParams}
	}
	return nil
}

// StateChange is one step of the state sequence ReplayClassify returns.
type StateChange struct {
	// Time is the recording time at which the classifier reported the state:
	// the output event's time, or the end of the quiet period after it.
	Time time.Duration
	// Event is the index in Recording.Events of the last event applied (-1:
	// the blank screen before any event).
	Event int
	// StableMs is the stable_ms the classifier was given.
	StableMs int64
	State    StateSnapshot
}

// MarshalJSON writes the time in seconds, as recordings do.
func (c StateChange) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Time     float64       `json:"time"`
		Event    int           `json:"event"`
		StableMs int64         `json:"stable_ms"`
		State    StateSnapshot `json:"state"`
	}{c.Time.Seconds(), c.Event, c.StableMs, c.State})
}

// player applies a recording's events to a Screen, waiting between them
// when asked to.
type player struct {
	rec    *asciicast.Recording
	opts   ReplayOptions
	screen *Screen
	start  time.Time
	// Timing: recorded time mapped to replay time, idle gaps capped.
	prev, shifted time.Duration
	timer         *time.Timer
}

func newPlayer(rec *asciicast.Recording, opts ReplayOptions) (*player, error) {
	if rec == nil {
		return nil, &FieldError{Field: "recording", Reason: "must not be nil", Err: ErrInvalidParams}
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.Speed == 0 {
		opts.Speed = 1
	}
	screen, err := NewScreen(Size{Rows: rec.Header.Height, Cols: rec.Header.Width})
	if err != nil {
		return nil, fmt.Errorf("ptywright: replay: header: %w", err)
	}
	return &player{rec: rec, opts: opts, screen: screen, start: time.Now()}, nil
}

// close stops the screen's reply goroutine; the screen stays readable.
func (p *player) close() {
	if p.timer != nil {
		p.timer.Stop()
	}
	_ = p.screen.Close() // Never fails.
}

// wait holds event i back until its (scaled) time when Timing; otherwise it
// only checks ctx now and then.
func (p *player) wait(ctx context.Context, i int) error {
	if !p.opts.Timing {
		if i%64 == 0 && ctx.Err() != nil {
			return cancelErr(ctx.Err())
		}
		return nil
	}
	t := p.rec.Events[i].Time
	gap := t - p.prev
	if limit := p.rec.Header.IdleTimeLimit; limit > 0 && gap > time.Duration(limit*float64(time.Second)) {
		gap = time.Duration(limit * float64(time.Second))
	}
	p.prev = t
	p.shifted += gap
	d := time.Duration(float64(p.shifted)/p.opts.Speed) - time.Since(p.start)
	if d <= 0 {
		return ctx.Err()
	}
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	select {
	case <-p.timer.C:
		return nil
	case <-ctx.Done():
		return cancelErr(ctx.Err())
	}
}

// apply plays event i on the screen and reports whether the screen changed.
func (p *player) apply(i int) (bool, error) {
	ev := p.rec.Events[i]
	switch ev.Type {
	case asciicast.EventOutput:
		_, _ = p.screen.Write([]byte(ev.Data)) // Never fails.
		return ev.Data != "", nil
	case asciicast.EventResize:
		rows, cols, err := asciicast.ParseResize(ev.Data)
		if err == nil {
			err = p.screen.Resize(Size{Rows: rows, Cols: cols})
		} else {
			err = fmt.Errorf("%w: %w", ErrInvalidSize, err)
		}
		if err != nil {
			return false, fmt.Errorf("ptywright: replay: event %d: %w", i, err)
		}
		return true, nil
	}
	return false, nil // Input and markers do not touch the screen.
}

// Replay plays a recording's output and resize events through a fresh
// Screen, without a process, and returns the final screen. Input and
// marker events are skipped: the output already shows their effect.
//
// The returned screen is closed (it answers no terminal queries) but stays
// readable and writable. Cancelling ctx returns an error wrapping
// ErrCancelled (ErrTimeout for a deadline).
func Replay(ctx context.Context, rec *asciicast.Recording, opts ReplayOptions) (*Screen, error) {
	p, err := newPlayer(rec, opts)
	if err != nil {
		return nil, err
	}
	defer p.close()
	for i := range rec.Events {
		if err := p.wait(ctx, i); err != nil {
			return nil, err
		}
		if _, err := p.apply(i); err != nil {
			return nil, err
		}
	}
	return p.screen, nil
}

// ReplayRaw plays a raw transcript (the bytes Options.RawTranscriptPath
// receives) through a fresh Screen of the given size (zero rows or cols mean
// 24x80). A raw transcript has no timing and no resizes. The returned screen
// is closed but readable, as with Replay.
func ReplayRaw(ctx context.Context, r io.Reader, size Size) (*Screen, error) {
	screen, err := NewScreen(size)
	if err != nil {
		return nil, err
	}
	defer screen.Close()
	buf := make([]byte, 32*1024)
	for {
		if err := ctx.Err(); err != nil {
			return nil, cancelErr(err)
		}
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = screen.Write(buf[:n]) // Never fails.
		}
		if errors.Is(err, io.EOF) {
			return screen, nil
		}
		if err != nil {
			return nil, fmt.Errorf("ptywright: replay raw: %w", err)
		}
	}
}

// ReplayClassify plays a recording through a Screen and ext's classifier
// and returns the sequence of states, consecutive repeats removed, each with
// the recording time it was first reported at.
//
// The classifier sees exactly what a live ExtensionHandle gives it (the same
// body/status split, transcript tail and threshold), with stable_ms taken
// from the recording's clock: it is called on the blank screen, after every
// output or resize event with stable_ms 0 (a screen that just changed), and
// at the end of every quiet period with stable_ms the period's length (the
// screen a live waiter would see settle). The last quiet period ends with
// the recording's last event of any kind, so a recording that ends with a
// marker or input after the final output gets a settled last screen. There
// is no last intent. A failing classifier yields the state
// contract.PluginErrorState, as live.
func ReplayClassify(ctx context.Context, rec *asciicast.Recording, ext Extension, opts ReplayOptions) ([]StateChange, error) {
	if ext == nil {
		return nil, &FieldError{Field: "extension", Reason: "must not be nil", Err: ErrInvalidParams}
	}
	p, err := newPlayer(rec, opts)
	if err != nil {
		return nil, err
	}
	defer p.close()
	threshold := opts.CompletedTurnStableMs
	if threshold <= 0 {
		threshold = defaultCompletedTurnStableMs
	}
	tr := newTranscript(classifyTranscriptChars)
	var out []StateChange
	report := func(i int, at time.Duration, stable time.Duration) {
		snap := p.screen.Snapshot(false)
		cc := newClassifyContext(snap, tr.Tail(classifyTranscriptChars), stable.Milliseconds(), nil, threshold)
		st := classify(ctx, ext, cc)
		if n := len(out); n > 0 && out[n-1].State.State == st.State {
			return
		}
		out = append(out, StateChange{Time: at, Event: i, StableMs: stable.Milliseconds(), State: st})
	}
	report(-1, 0, 0)
	for i, ev := range rec.Events {
		if err := p.wait(ctx, i); err != nil {
			return out, err
		}
		changed, err := p.apply(i)
		if err != nil {
			return out, err
		}
		if !changed {
			continue
		}
		if ev.Type == asciicast.EventOutput {
			tr.Write([]byte(ev.Data))
		}
		report(i, ev.Time, 0)
		end := nextChange(rec.Events, i)
		if gap := end - ev.Time; gap >= time.Millisecond {
			report(i, end, gap)
		}
	}
	return out, nil
}

// nextChange returns when the quiet period after event i ends: at the next
// output or resize event, or at the last event of the recording.
func nextChange(evs []asciicast.Event, i int) time.Duration {
	for _, ev := range evs[i+1:] {
		if ev.Type == asciicast.EventOutput || ev.Type == asciicast.EventResize {
			return ev.Time
		}
	}
	return evs[len(evs)-1].Time
}
