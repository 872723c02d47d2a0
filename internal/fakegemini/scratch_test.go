//go:build scratch

package fakegemini_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ptywright"
	"ptywright/internal/fakegemini"
)

func tail(s *ptywright.Session, n int) string {
	lines := strings.Split(s.Screen().PlainText(), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func TestScratchVariants(t *testing.T) {
	srv := fakegemini.NewServer(fakegemini.DemoScript(), fakegemini.Options{})
	defer srv.Close()
	home, _ := os.MkdirTemp("/var/tmp", "gemscratch")
	defer os.RemoveAll(home)
	work := filepath.Join(home, "work")
	os.MkdirAll(work, 0o755)
	fakegemini.Settings{Workdir: work}.Write(home)
	s, err := ptywright.Start(ptywright.Options{Program: "/tmp/gemtui/node_modules/.bin/gemini", Dir: work,
		Env:  map[string]string{"HOME": home, "CI": "", "LANG": "C.UTF-8", fakegemini.APIKeyEnv: "k", fakegemini.BaseURLEnv: srv.URL},
		Size: ptywright.Size{Rows: 24, Cols: 80}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	w := func(m ptywright.Matcher, d time.Duration) error {
		c, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		_, err := s.Wait(c, m)
		return err
	}
	t0 := time.Now()
	if err := w(ptywright.ContainsText("Type your message"), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("composer after %v", time.Since(t0))
	// Early: Enter on an empty composer, then the paste; Enter 1 s later.
	time.Sleep(3 * time.Second)
	t.Logf("settled screen:\n%s", tail(s, 9))
	variants := []struct {
		name string
		acts []ptywright.Action
		gap  time.Duration
	}{
		{"paste+enter", []ptywright.Action{ptywright.BracketedPaste("What is the ANSWER? a"), ptywright.Press(ptywright.KeyEnter)}, 0},
		{"paste+end+enter", []ptywright.Action{ptywright.BracketedPaste("What is the ANSWER? b"), ptywright.Press(ptywright.KeyEnd), ptywright.Press(ptywright.KeyEnter)}, 0},
		{"paste,60ms,enter", []ptywright.Action{ptywright.BracketedPaste("What is the ANSWER? c"), ptywright.Press(ptywright.KeyEnter)}, 60 * time.Millisecond},
		{"paste,150ms,enter", []ptywright.Action{ptywright.BracketedPaste("What is the ANSWER? d"), ptywright.Press(ptywright.KeyEnter)}, 150 * time.Millisecond},
	}
	for _, v := range variants {
		n := len(srv.Turns())
		for i, a := range v.acts {
			if i == len(v.acts)-1 && v.gap > 0 {
				time.Sleep(v.gap)
			}
			s.Perform(ctx, a)
		}
		err := w(ptywright.ContainsText("Type your message"), 3*time.Second)
		time.Sleep(500 * time.Millisecond)
		t.Logf("%s: submitted=%v (%v); screen:\n%s", v.name, len(srv.Turns()) > n, err, tail(s, 9))
		if len(srv.Turns()) == n {
			s.Perform(ctx, ptywright.Press(ptywright.KeyEnter))
			err := w(ptywright.ContainsText("Type your message"), 3*time.Second)
			time.Sleep(500 * time.Millisecond)
			t.Logf("  second enter: submitted=%v (%v) last prompt %q", len(srv.Turns()) > n, err, srv.Turns()[len(srv.Turns())-1].Prompt())
		}
	}
}
