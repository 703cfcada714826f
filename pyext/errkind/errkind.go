// Package errkind says which Python exception a Go error raises: one
// classification of memview's and cuda's sentinel errors, used by pyext's
// bridge for memview's own calls and by gopyrt for the bound Go packages'.
// The kinds are the MV_*_ERROR values of pyext/bridge.h, read from it, so C
// and Go share one enum; pyext's C turns a kind into its exception class
// (mv_exception_type, core_errors.c).
package errkind

/*
#include "../bridge.h"
*/
import "C"

import (
	"errors"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

// The kinds of Python exception a Go error becomes.
const (
	Value   = int(C.MV_VALUE_ERROR)   // ValueError
	Type    = int(C.MV_TYPE_ERROR)    // TypeError
	Index   = int(C.MV_INDEX_ERROR)   // IndexError
	Buffer  = int(C.MV_BUFFER_ERROR)  // BufferError
	Memory  = int(C.MV_MEMORY_ERROR)  // MemoryError
	System  = int(C.MV_SYSTEM_ERROR)  // SystemError: a bug in memview
	CUDA    = int(C.MV_CUDA_ERROR)    // memview.cuda.CUDAError
	Runtime = int(C.MV_RUNTIME_ERROR) // RuntimeError
)

// Of is the kind of exception err raises: the one memview raises for the
// memview or cuda sentinel err wraps, else fallback (memview's own calls
// fall back on Value; a bound package's errors on Runtime, as gopy raises).
func Of(err error, fallback int) int {
	switch {
	case errors.Is(err, memview.ErrType):
		return Type
	case errors.Is(err, memview.ErrIndex):
		return Index
	case errors.Is(err, memview.ErrExported):
		return Buffer
	case errors.Is(err, memview.ErrNoMemory):
		return Memory
	case errors.Is(err, memview.ErrInvalid), errors.Is(err, memview.ErrReadOnly), errors.Is(err, memview.ErrReleased),
		errors.Is(err, cuda.ErrInvalidDevice), errors.Is(err, cuda.ErrInvalidStream):
		return Value
	case errors.Is(err, cuda.ErrNoDevice), errors.As(err, new(*cuda.Error)):
		return CUDA
	default:
		return fallback
	}
}
