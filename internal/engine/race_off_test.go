//go:build !race

package engine

// raceEnabled is set under the race detector, which slows the differential
// tests about tenfold; they then run fewer random cases.
const raceEnabled = false
