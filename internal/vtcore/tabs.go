package vtcore

const tabInterval = 8

// tabStops are the horizontal tab stops, one flag per column.
type tabStops []bool

func defaultTabStops(cols int) tabStops {
	ts := make(tabStops, cols)
	for x := 0; x < cols; x += tabInterval {
		ts[x] = true
	}
	return ts
}

func (ts tabStops) isStop(x int) bool { return x >= 0 && x < len(ts) && ts[x] }

// next returns the first stop after x, or the last column.
func (ts tabStops) next(x int) int {
	for x < len(ts)-1 {
		x++
		if ts[x] {
			return x
		}
	}
	return x
}

// prev returns the last stop before x, or column 0.
func (ts tabStops) prev(x int) int {
	for x >= 1 {
		x--
		if ts.isStop(x) {
			return x
		}
	}
	return x
}

func (ts tabStops) set(x int) {
	if x >= 0 && x < len(ts) {
		ts[x] = true
	}
}

func (ts tabStops) unset(x int) {
	if x >= 0 && x < len(ts) {
		ts[x] = false
	}
}
