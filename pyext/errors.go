package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/memview/memview/pyext/errkind"
	"github.com/memview/memview/pyext/pymsg"
)

// kindOf maps a memview error to the Python exception C raises for it: its
// own two sentinels, then errkind's classification (ValueError by default).
func kindOf(err error) C.int {
	switch {
	case errors.Is(err, errBuffer):
		return C.MV_BUFFER_ERROR
	case errors.Is(err, errInternal):
		return C.MV_SYSTEM_ERROR
	default:
		return C.int(errkind.Of(err, errkind.Value))
	}
}

// errInternal marks a recovered Go panic: a bug in memview, reported as SystemError.
var errInternal = errors.New("memview: internal error")

// setErr writes err into e (which may be nil) and returns the failure code.
func setErr(e *C.mv_err, err error) C.int {
	if e == nil {
		return -1
	}
	e.kind = kindOf(err)
	putString(unsafe.Pointer(&e.msg[0]), len(e.msg), pymsg.Text(err)) // as Python reads it
	return -1
}

// putString copies s into a C char array of size n, NUL-terminated and
// truncated at a character boundary (Python decodes it as UTF-8).
func putString(dst unsafe.Pointer, n int, s string) {
	b := unsafe.Slice((*byte)(dst), n)
	if len(s) > n-1 {
		k := n - 1
		for k > 0 && !utf8.RuneStart(s[k]) {
			k--
		}
		s = s[:k]
	}
	k := copy(b[:n-1], s)
	b[k] = 0
}

// guard recovers a panic in a function C called and turns it into an error:
// no Go panic may cross into C.
func guard(e *C.mv_err, rc *C.int) {
	if r := recover(); r != nil {
		*rc = setErr(e, fmt.Errorf("%w: Go panic: %v", errInternal, r))
	}
}
