package rpc

import "ptywright"

// snapshotFields is a ScreenSnapshot without its methods: encoded as a
// plain struct, by the response's own encoder.
type snapshotFields ptywright.ScreenSnapshot

// wireSnapshot is a ScreenSnapshot in the shape ScreenSnapshot.MarshalJSON
// gives it (the same members in the same order, an unset title as null,
// no cells as []), for the results a wait answers with. encoding/json
// scans what a MarshalJSON returns again, byte by byte, to check and
// compact it: for a screen's text that scan cost more than building the
// whole response, on the path from the child's output to the client.
type wireSnapshot struct {
	snapshotFields
	Title *string `json:"title"`
}

func toWireSnapshot(s ptywright.ScreenSnapshot) wireSnapshot {
	w := wireSnapshot{snapshotFields: snapshotFields(s)}
	if s.Title != "" {
		title := s.Title
		w.Title = &title
	}
	if w.Cells == nil {
		w.Cells = []ptywright.Cell{}
	}
	return w
}
