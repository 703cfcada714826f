package memview

import (
	"fmt"
	"unsafe"
)

// externalArray is what WrapExternalArray allocates, once: the array, its
// buffer, and room for the shape and strides of up to 4 dimensions.
type externalArray struct {
	a     Array
	b     Buffer
	store [2 * 4]int
}

// WrapExternalArray is WrapExternal and NewArray in one: an array of dt laid
// out by shape, strides and offset (checked against size as NewArray checks
// them; nil strides mean C-contiguous) over size bytes at p, memory the
// caller owns and that must stay valid until release runs. The array, its
// buffer and (up to 4 dimensions) its shape and strides are one allocation,
// for arrays made per call, such as the one a bound Go function is lent for a
// call. The array holds the buffer's only reference: release runs when the
// array and every view made of it are released. On an error release does not
// run and nothing is held.
func WrapExternalArray(p unsafe.Pointer, size int, readonly bool, release func(), dt DType,
	shape, strides []int, offset int) (*Array, error) {
	if !dt.IsValid() {
		return nil, fmt.Errorf("memview: new array: invalid dtype: %w", ErrType)
	}
	x := new(externalArray)
	l, err := newLayout(shape, strides, offset, dt.Itemsize(), size, x.store[:])
	if err != nil {
		return nil, err
	}
	x.b = Buffer{ptr: p, size: size, capacity: size, mutable: !readonly, refs: 1, release: release}
	x.a = Array{buf: &x.b, dt: dt, layout: l, readonly: readonly}
	return &x.a, nil
}
