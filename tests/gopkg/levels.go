package gopkg

// Level is a named unsigned integer type with constants: Python sees
// gopkg.Level, an int subclass, and its results are instances of it.
type Level uint8

// The levels.
const (
	Low Level = iota
	Medium
	High
)

// LevelOf is High for n above 10, Medium above 0, else Low.
func LevelOf(n int) Level {
	switch {
	case n > 10:
		return High
	case n > 0:
		return Medium
	}
	return Low
}

// Raise is the level above l (High stays High), or an error for a level
// that is none of the constants.
func Raise(l Level) (Level, error) {
	if l > High {
		return 0, ErrNotALevel
	}
	if l < High {
		l++
	}
	return l, nil
}

// ErrNotALevel is Raise's error for a value beyond High.
var ErrNotALevel = errorString("gopkg: not a level")

// errorString is an error whose value is its message.
type errorString string

func (e errorString) Error() string { return string(e) }

// LevelAndCount returns two results of which one is a Level: a tuple whose
// Level is an instance of gopkg.Level.
func LevelAndCount(n int) (Level, int) { return LevelOf(n), n }

// Levels returns two Levels: a tuple of plain ints, as the stub says (an
// entry is given the class of one result at most).
func Levels(a, b int) (Level, Level) { return LevelOf(a), LevelOf(b) }
