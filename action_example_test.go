package ptywright_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"ptywright"
)

// Actions are built with constructors in Go and decoded strictly from the
// JSON-RPC wire form.
func ExampleAction() {
	plan := []ptywright.Action{
		ptywright.BracketedPaste("explain this repo"),
		ptywright.Press(ptywright.KeyEnter),
		ptywright.Resize(40, 120),
	}
	for _, a := range plan {
		wire, _ := json.Marshal(a)
		input, ok := a.Input(false)
		fmt.Printf("%s input=%q ok=%v\n", wire, input, ok)
	}

	var a ptywright.Action
	err := json.Unmarshal([]byte(`{"type":"resize","value":{"rows":0,"cols":80}}`), &a)
	fmt.Println(err, errors.Is(err, ptywright.ErrInvalidAction))
	// Output:
	// {"type":"bracketed_paste","value":"explain this repo"} input="\x1b[200~explain this repo\x1b[201~" ok=true
	// {"type":"key","value":"enter"} input="\r" ok=true
	// {"type":"resize","value":{"rows":40,"cols":120,"pixel_width":0,"pixel_height":0}} input="" ok=false
	// action.value.rows: must be between 1 and 10000, got 0 true
}

// Arrow keys change encoding when the program enables application cursor
// mode; pass the screen's mode to Bytes.
func ExampleKey_Bytes() {
	fmt.Printf("%q %q\n", ptywright.KeyUp.Bytes(false), ptywright.KeyUp.Bytes(true))
	_, err := ptywright.ParseKey("Enter")
	fmt.Println(errors.Is(err, ptywright.ErrUnknownKey))
	// Output:
	// "\x1b[A" "\x1bOA"
	// true
}

// Keys with modifiers, as xterm sends them.
func ExampleKey_With() {
	k := ptywright.KeyLeft.With(ptywright.ModAlt)
	fmt.Printf("%s %q\n", k, k.Bytes(false))
	k = ptywright.KeyRight.With(ptywright.ModCtrl | ptywright.ModShift)
	fmt.Printf("%s %q\n", k, k.Bytes(false))
	k, _ = ptywright.ParseKey("shift_f5")
	fmt.Printf("%s %q\n", k, k.Bytes(false))
	// Output:
	// alt_left "\x1b[1;3D"
	// ctrl_shift_right "\x1b[1;6C"
	// shift_f5 "\x1b[15;2~"
}
