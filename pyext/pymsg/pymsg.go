// Package pymsg writes Go errors as a Python user reads them. memview's own
// errors and the errors of Go packages built together with memview reach
// Python through it: pyext's bridge (setErr) and the code gopy generates
// (gopyrt) both call Text.
//
// A Go error that wraps a memview sentinel ends in the sentinel's text
// ("...: invalid argument") so that Go code can classify it with errors.Is.
// In Python the exception type says that (ValueError), so Text leaves the
// text out — unless the message would then say nothing of its own, as
// "mypkg.Write: array is read-only" would, cut to a bare name, "mypkg.Write".
// Shapes and strides read as Python tuples (Tuple).
//
// The package has no cgo and no Python: go test ./pyext/pymsg runs anywhere.
package pymsg

import (
	"strconv"
	"strings"

	"github.com/memview/memview/memview"
)

// sentinels are the errors memview's errors (and a bound package's errors)
// are classified by; their text says nothing a Python user needs.
var sentinels = []error{memview.ErrInvalid, memview.ErrType, memview.ErrIndex, memview.ErrReadOnly,
	memview.ErrExported, memview.ErrReleased, memview.ErrNoMemory}

// Text is err's message as Python shows it: without the sentinels' text
// (": invalid argument" at the end or in the middle, " (invalid argument)"),
// unless only a bare name would remain (no space), and with one "memview: " prefix
// where Go wrapped one context in another ("memview.from_buffer: memview:
// format ..." reads "memview.from_buffer: format ...").
func Text(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	t := s
	for _, x := range sentinels {
		t = strings.ReplaceAll(t, ": "+x.Error(), "")
		t = strings.ReplaceAll(t, " ("+x.Error()+")", "")
	}
	if t != s && !strings.Contains(t, " ") {
		t = s // "mypkg.Write: array is read-only": the sentinel is all it says
	}
	return strings.ReplaceAll(t, ": memview: ", ": ")
}

// Tuple writes dims as Python writes a tuple of ints — "(3, 4)", "(5,)",
// "()" — the way shapes, strides and axes read in messages for Python.
func Tuple(dims []int) string {
	if len(dims) == 1 {
		return "(" + strconv.Itoa(dims[0]) + ",)"
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
