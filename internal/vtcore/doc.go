// Package vtcore is ptywright's terminal emulator: it turns program output
// into a grid of cells, a cursor and the modes a snapshot reports.
//
// It is built for throughput. Rows are separate slices, so scrolling the
// screen or a full-width scroll region rotates row headers (O(rows)) rather
// than copying every cell; cells are small pointer-free values (a rune or an
// index into a table of grapheme clusters, a width, a packed style), so the
// garbage collector never scans the grid and printing allocates nothing.
// The common input (runs of printable ASCII, UTF-8 characters, C0
// controls, complete CSI sequences) bypasses the general parser, and
// clusters of common characters bypass the Unicode segmenter.
// The main screen keeps a bounded scrollback (Terminal.SetScrollback) of the
// rows that leave its top, as xterm and tmux do; resizing moves rows
// between it and the screen.
//
// Replies to queries (device attributes, status and cursor reports, mode
// reports, colour queries) are handed to a callback from Write: no pipe, no
// goroutine.
//
// # Compatibility
//
// tmux and xterm are the reference: where vtcore's screen differs from
// tmux's on the same bytes, vtcore is wrong (the root package's fidelity
// tests replay bytes into a real tmux). vtcore parses with x/ansi's parser
// and otherwise follows charmbracelet/x/vt, the emulator it replaces, cell
// for cell: the differential tests of the root package hold it to x/vt's
// grid, cursor, modes and replies on real program output, Claude Code
// screens and random sequences. That includes x/vt's choices where xterm
// differs and no program we drive is known to care: CR, HPR and VPR add
// the region's origin again under DECOM; a resize cuts or adds columns at
// the right, without reflow; a cluster split across two writes is two
// clusters. Where a program shows such a choice wrong against tmux, it
// moves to the list below.
//
// It departs from x/vt where x/vt is demonstrably wrong against xterm and
// tmux, and counts each departure (Terminal.Divergences) so the
// differential tests stop comparing a stream where it first happens:
//
//   - Resizing keeps the cursor's row: shrinking drops the rows below the
//     cursor, then moves rows off the top into the scrollback, the cursor
//     following; growing takes rows back from the scrollback (x/vt cuts
//     and adds rows at the bottom). ED 3 erases the scrollback and leaves
//     the screen (x/vt blanks the screen).
//   - One cursor for both screens, as in xterm and tmux: modes 47, 1047
//     and 1049 enter a cleared alternate screen with the cursor where it
//     was (x/vt homes it); leaving 47 or 1047 keeps the cursor where the
//     program left it; leaving 1049 restores the saved cursor, even on the
//     main screen; cursor visibility is the terminal's, not a screen's.
//     x/vt ignores 47.
//   - Widths are per code point, as bash's readline, vim and tmux count
//     them: a cell holds a character of non-zero width and the zero-width
//     ones after it (and, as tmux 3.3 does, the character a ZWJ joins), so
//     "❤️" is 1 column and "👍🏽" 4. Mode 2027 switches to grapheme
//     clusters with ansi.GraphemeWidth, which x/vt uses whatever the mode
//     says; DECRQM reports mode 2027 as known (x/vt: unknown until set).
//   - CSI 22 t and CSI 23 t push and pop the title (x/vt ignores them).
//   - SGR 21 is a double underline (ECMA-48, xterm, tmux); x/vt ignores it.
//   - DSR 5 is answered ESC[0n (ECMA-48 8.3.35, xterm); x/vt answers
//     ESC[?0n. (Reply only, not counted.)
//   - CPR and DECXCPR are relative to the scroll region's origin under
//     DECOM, as xterm reports them; x/vt reports the absolute position.
//   - A wide character that does not fit before the right edge wraps to the
//     next line first (x/vt writes blanks and loses it), and one that ends
//     on the last column leaves a pending wrap (x/vt lets the next character
//     overwrite its right half). Readline relies on the latter when a
//     command line of wide characters fills the row.
//   - IRM (SM 4) inserts, SO and SI shift G1 and G0 into GL, NEL (ESC E,
//     C1 0x85) is index plus carriage return: x/vt ignores all three.
//   - OSC 0 and 2 take everything after the first ';' as the title; x/vt
//     ignores a title holding a ';'.
//   - A 0x9C byte inside a UTF-8 character of an OSC string is text, not
//     the 8-bit String Terminator (xterm in UTF-8 mode): x/vt ends the
//     string there, so Claude Code's title "✳ Claude Code" (E2 9C B3) leaks
//     " Claude Code" onto the screen and leaves the title "\xe2".
//   - Erasures and edits as xterm and tmux do them (found on btop and
//     tig): ED 1 erases from the top up to the cursor's cell (x/vt:
//     the cursor's whole row); ED 2 fills with the pen's background, as the
//     other erasures do (x/vt: default blanks); IL and DL leave the cursor
//     at the left margin of its row (x/vt adds the region's top to the
//     row); CSI u restores the cursor CSI s saved, SCORC (x/vt ignores
//     it); setting or resetting DECOM homes the cursor (x/vt leaves it);
//     ICH and DCH move wide characters whole and blank only one the edit
//     cuts in two (x/vt blanks every wide character DCH moves, and ICH
//     splits the one at the cursor). An ICH or DCH is counted only when the
//     row comes out different from x/vt's.
//   - The cursor never leaves the grid: DECSTBM and DECSLRM clamp margins
//     past the edge to it, and a cursor restored (DECRC, the inactive
//     screen's on switching back) after the grid shrank is clamped. x/vt
//     lets it leave the grid there, and can then index out of range.
package vtcore
