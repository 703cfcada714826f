package memview

import (
	"fmt"
	"math"
	"unsafe"
)

// offsetOf returns the byte offset of one element relative to element 0. idx
// must index every axis; negative indexes count from the end. Errors wrap
// ErrIndex.
func (a *Array) offsetOf(idx []int) (int, error) {
	l := a.layout
	if len(idx) != l.NDim() {
		return 0, fmt.Errorf("memview: %d indices for an array of %d dimensions (one per axis needed): %w", len(idx), l.NDim(), ErrIndex)
	}
	off := 0
	for k, i := range idx {
		n := l.Shape[k]
		if i < -n || i >= n {
			return 0, errorExact(ErrIndex, "memview: index %d is out of bounds for axis %d with size %d", i, k, n)
		}
		if i < 0 {
			i += n
		}
		off += i * l.Strides[k]
	}
	return off, nil
}

// elem returns the address of one element (see offsetOf).
func (a *Array) elem(idx []int) (unsafe.Pointer, error) {
	if err := a.hostAlive(); err != nil {
		return nil, err
	}
	off, err := a.offsetOf(idx)
	if err != nil {
		return nil, err
	}
	return unsafe.Add(a.Pointer(), off), nil
}

// ItemBytes returns the itemsize bytes of one element, aliasing the memory
// (do not keep them past Release, nor write them if the array is read-only).
// idx must index every axis (else ErrIndex); negative indexes count from the
// end; out of range wraps ErrIndex.
func (a *Array) ItemBytes(idx ...int) ([]byte, error) {
	p, err := a.elem(idx)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), a.dt.Itemsize()), nil
}

// Float64 reads one element of a bool, integer or float dtype as a float64
// (native little-endian; float16 decoded exactly). Complex dtypes wrap
// ErrType. Indexing is as ItemBytes.
func (a *Array) Float64(idx ...int) (float64, error) {
	p, err := a.elem(idx)
	if err != nil {
		return 0, err
	}
	switch a.dt.basicOf() {
	case Bool:
		if *(*uint8)(p) != 0 {
			return 1, nil
		}
		return 0, nil
	case Int8:
		return float64(*(*int8)(p)), nil
	case Int16:
		return float64(*(*int16)(p)), nil
	case Int32:
		return float64(*(*int32)(p)), nil
	case Int64:
		return float64(*(*int64)(p)), nil
	case Uint8:
		return float64(*(*uint8)(p)), nil
	case Uint16:
		return float64(*(*uint16)(p)), nil
	case Uint32:
		return float64(*(*uint32)(p)), nil
	case Uint64:
		return float64(*(*uint64)(p)), nil
	case Float16:
		return float16ToFloat64(*(*uint16)(p)), nil
	case Float32:
		return float64(*(*float32)(p)), nil
	case Float64:
		return *(*float64)(p), nil
	}
	return 0, fmt.Errorf("memview: read of a %s element as float64: %w", a.dt, ErrType)
}

// SetFloat64 converts v to the dtype and stores it in one element: integers
// truncate toward zero like a C cast (values out of range wrap modulo 2^bits,
// as NumPy does on x86-64 for in-int64-range values); bool stores v != 0;
// float16 rounds to nearest even; complex stores (v, 0). A read-only array
// wraps ErrReadOnly. Indexing is as ItemBytes.
func (a *Array) SetFloat64(v float64, idx ...int) error {
	if a.readonly {
		return fmt.Errorf("memview: write to a read-only array: %w", ErrReadOnly)
	}
	p, err := a.elem(idx)
	if err != nil {
		return err
	}
	switch a.dt.basicOf() {
	case Bool:
		var b uint8
		if v != 0 {
			b = 1
		}
		*(*uint8)(p) = b
	case Int8:
		*(*int8)(p) = int8(toInt64(v))
	case Int16:
		*(*int16)(p) = int16(toInt64(v))
	case Int32:
		*(*int32)(p) = int32(toInt64(v))
	case Int64:
		*(*int64)(p) = toInt64(v)
	case Uint8:
		*(*uint8)(p) = uint8(toInt64(v))
	case Uint16:
		*(*uint16)(p) = uint16(toInt64(v))
	case Uint32:
		*(*uint32)(p) = uint32(toInt64(v))
	case Uint64:
		if v >= 1<<63 {
			*(*uint64)(p) = uint64(v)
		} else {
			*(*uint64)(p) = uint64(toInt64(v))
		}
	case Float16:
		*(*uint16)(p) = float64ToFloat16(v)
	case Float32:
		*(*float32)(p) = float32(v)
	case Float64:
		*(*float64)(p) = v
	case Complex64:
		*(*complex64)(p) = complex(float32(v), 0)
	case Complex128:
		*(*complex128)(p) = complex(v, 0)
	default:
		return fmt.Errorf("memview: write of a float64 to a %s element: %w", a.dt, ErrType)
	}
	return nil
}

// toInt64 truncates v toward zero; NaN and values beyond int64 give
// math.MinInt64, as the x86-64 conversion instruction does.
func toInt64(v float64) int64 {
	if math.IsNaN(v) || v >= 1<<63 || v < -(1<<63) {
		return math.MinInt64
	}
	return int64(v)
}

// Each calls fn with the address of every element in C order (the strided
// iterator), and stops at and returns the first error.
func (a *Array) Each(fn func(p unsafe.Pointer) error) error {
	if err := a.hostAlive(); err != nil {
		return err
	}
	base := a.Pointer()
	return eachOffset(a.layout.Shape, a.layout.Strides, func(off int) error {
		return fn(unsafe.Add(base, off))
	})
}
