package memview

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Sentinel errors. Every error returned by this package wraps exactly one of
// them, so callers (the Python layer in particular) can classify an error with
// errors.Is and map it to an exception type. The sentinels carry no package
// prefix because they are always wrapped with context that has one.
var (
	// ErrInvalid reports a bad argument: a bad shape, bad strides or layout,
	// an impossible reshape, a bad order character, a zero slice step.
	// Python: ValueError.
	ErrInvalid = errors.New("invalid argument")

	// ErrType reports an unknown dtype name or an unsupported format.
	// Python: TypeError.
	ErrType = errors.New("unsupported type")

	// ErrIndex reports an index out of range or too many indices.
	// Python: IndexError.
	ErrIndex = errors.New("index error")

	// ErrReadOnly reports a write to a read-only array.
	// Python: ValueError.
	ErrReadOnly = errors.New("array is read-only")

	// ErrExported reports a release or free of a buffer that still has live
	// exports. Python: BufferError.
	ErrExported = errors.New("buffer has live exports")

	// ErrReleased reports the use of a released buffer or array.
	// Python: ValueError.
	ErrReleased = errors.New("use of released memory")

	// ErrNoMemory reports an allocation failure or a size overflow.
	// Python: MemoryError.
	ErrNoMemory = errors.New("out of memory")
)

// tuple writes dims as Python writes a tuple of ints — "(3, 4)", "(5,)", "()" —
// the way shapes, strides and axes read in messages that reach Python users.
func tuple(dims []int) string {
	if len(dims) == 1 {
		return "(" + strconv.Itoa(dims[0]) + ",)"
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// npShape writes a shape as NumPy's messages do, without spaces: "(3,)",
// "(0,3,4)" (broadcast errors say it in NumPy's words).
func npShape(dims []int) string {
	return strings.ReplaceAll(tuple(dims), ", ", ",")
}

// quote writes a user's string for an error message, as %q does, cut to
// about 80 bytes (at a character boundary) so that a long one does not drown
// the message.
func quote(s string) string {
	if len(s) > 80 {
		k := 77
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		return strconv.Quote(s[:k]) + "..."
	}
	return strconv.Quote(s)
}

// exactError is an error whose message is given in full (it does not end in
// the sentinel's text) but which still unwraps to a sentinel. It is used where
// the message must match a well-known wording, such as NumPy's index errors.
type exactError struct {
	msg  string
	base error
}

func (e *exactError) Error() string { return e.msg }
func (e *exactError) Unwrap() error { return e.base }

// errorExact returns an error with exactly the formatted message that
// unwraps to base.
func errorExact(base error, format string, args ...any) error {
	return &exactError{msg: fmt.Sprintf(format, args...), base: base}
}
