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
// JSON), still goes through encoding/json, and so does a snapshot with
// cells, which a wait never returns. TestEncodeWaitResultMatchesMarshal
// holds it to marshal, and fails if waitResult gains a field.
func encodeWaitResult(r waitResult) (preEncoded, error) {
	snap := ptywright.ScreenSnapshot(r.Snapshot.snapshotFields)
	if len(snap.Cells) > 0 {
		b, err := marshal(r)
		if err != nil {
			return nil, encodingError(err)
		}
		return preEncoded(b), nil
	}
	dst := make([]byte, 0, 384+len(snap.PlainText)+len(r.TranscriptTail)+len(r.TranscriptTail)/4)
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
