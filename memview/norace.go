//go:build !race

package memview

// raceEnabled reports a build with the race detector, in which atomic
// loads are calls rather than instructions (see viewCore.at).
const raceEnabled = false
