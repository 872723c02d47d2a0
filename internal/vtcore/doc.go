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
// There is no scrollback: ptywright's transcript keeps the history.
//
// Replies to queries (device attributes, status and cursor reports, mode
// reports, colour queries) are handed to a callback from Write: no pipe, no
// goroutine.
//
// # Compatibility
//
// vtcore parses with x/ansi's parser and otherwise follows
// charmbracelet/x/vt, the emulator it replaces, cell for cell: the
// differential tests of the root package hold it to x/vt's grid, cursor,
// modes and replies on real program output, Claude Code screens and random
// sequences. That includes x/vt's choices where xterm differs and no
// program we drive is known to care, among them: ED 1 erases the cursor's
// whole row; ED 2 and 3 blank without the pen's background; IL and DL move
// the cursor down by the scroll region's top; CR, HPR and VPR add the
// region's origin again under DECOM, and setting DECOM does not home the
// cursor; ICH and DCH move the halves of a wide character apart; a resize
// cuts or adds rows and columns at the bottom and right, without reflow;
// modes 47 and CSI u do nothing; grapheme widths are ansi.GraphemeWidth's
// whatever mode 2027 says, and a cluster split across two writes is two
// clusters.
//
// It departs from x/vt where x/vt is demonstrably wrong against xterm, and
// counts each departure (Terminal.Divergences) so the differential tests
// stop comparing a stream where it first happens:
//
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
//   - The cursor never leaves the grid: DECSTBM and DECSLRM clamp margins
//     past the edge to it, and a cursor restored (DECRC, the inactive
//     screen's on switching back) after the grid shrank is clamped. x/vt
//     lets it leave the grid there, and can then index out of range.
package vtcore
