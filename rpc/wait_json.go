package rpc

import (
	"strconv"

	"ptywright"
)

// encodeWaitResult is marshal(r), byte for byte, built by hand: it is the
// response on the path from the child's output to a waiting client, and
// encoding/json spent some 20 µs on it, reflecting over the snapshot and
// escaping the screen and the transcript tail a byte at a time. The
// outcome, small and of many shapes (a lua predicate's evidence is any
// JSON), still goes through encoding/json. So does a snapshot that
// appendSnapshotJSONWith would write otherwise than marshal: one with
// cells (their strings are HTML-escaped there), nil cells (marshal writes
// null) or a title set to "" (marshal writes ""), none of which
// toWireSnapshot, and so a wait, gives. TestEncodeWaitResultMatchesMarshal
// holds it to marshal, and fails if waitResult gains a field.
func encodeWaitResult(r waitResult) (preEncoded, error) {
	w := r.Snapshot
	if len(w.Cells) > 0 || w.Cells == nil || w.Title != nil && *w.Title == "" {
		b, err := marshal(r)
		if err != nil {
			return nil, encodingError(err)
		}
		return preEncoded(b), nil
	}
	snap := ptywright.ScreenSnapshot(w.snapshotFields)
	snap.Title = "" // null, unless the wire's title says otherwise
	if w.Title != nil {
		snap.Title = *w.Title
	}
	// Room for the members, the texts and some of their escapes; the
	// appends grow it if a text needs more.
	dst := make([]byte, 0, 384+len(snap.PlainText)+len(snap.Title)+len(r.TranscriptTail)+len(r.TranscriptTail)/4)
	dst = appendBoolMember(dst, `{"matched":`, r.Matched)
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendUint(dst, r.Sequence, 10)
	dst = append(dst, `,"elapsed_ms":`...)
	dst = strconv.AppendInt(dst, r.ElapsedMs, 10)
	dst = append(dst, `,"snapshot":`...)
	dst = appendSnapshotJSONWith(dst, snap, appendJSONString)
	dst = append(dst, `,"transcript_tail":`...)
	dst = appendJSONString(dst, r.TranscriptTail)
	if r.Outcome != nil {
		dst = append(dst, `,"outcome":`...)
		var err error
		if dst, err = appendMarshal(dst, r.Outcome); err != nil {
			return nil, encodingError(err) // a lua predicate's evidence holding NaN, say
		}
	}
	dst = append(dst, `,"stable_for_ms":`...)
	dst = strconv.AppendInt(dst, r.StableForMs, 10)
	return append(dst, '}'), nil
}
