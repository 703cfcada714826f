package memview

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrapExternalArray(t *testing.T) {
	mem := make([]float64, 12)
	for i := range mem {
		mem[i] = float64(i)
	}
	released := 0
	// every other element of 12, read backwards: element 0 is the last even one
	a, err := WrapExternalArray(unsafe.Pointer(&mem[0]), 96, false, func() { released++ }, Float64,
		[]int{6}, []int{-16}, 80)
	require.NoError(t, err)
	assert.Equal(t, []int{6}, a.Shape())
	assert.Equal(t, []int{-16}, a.Strides())
	v, err := a.Float64(1)
	require.NoError(t, err)
	assert.Equal(t, 8.0, v)
	assert.False(t, a.ReadOnly())

	view, err := a.Index(Slice(1, 3, 1)) // Go keeps a view: the memory stays lent
	require.NoError(t, err)
	require.NoError(t, a.Release())
	assert.Equal(t, 0, released)
	v, err = view.Float64(0)
	require.NoError(t, err)
	assert.Equal(t, 8.0, v)
	require.NoError(t, view.Release())
	assert.Equal(t, 1, released)
	assert.ErrorIs(t, a.Release(), ErrReleased)
	assert.Equal(t, 1, released)
}

func TestWrapExternalArrayShapeAndStridesApart(t *testing.T) {
	mem := make([]byte, 64)
	a, err := WrapExternalArray(unsafe.Pointer(&mem[0]), 64, true, nil, Uint8, []int{2, 3}, []int{3, 1}, 0)
	require.NoError(t, err)
	l := a.layout
	_ = append(l.Shape, 99) // the copies sit side by side: an append must not reach the strides
	assert.Equal(t, []int{3, 1}, a.Strides())
	assert.True(t, a.ReadOnly())
	// more dimensions than the one allocation has room for, and nil strides
	b, err := WrapExternalArray(unsafe.Pointer(&mem[0]), 64, false, nil, Uint8, []int{2, 2, 2, 2, 2, 2}, nil, 0)
	require.NoError(t, err)
	assert.Equal(t, []int{32, 16, 8, 4, 2, 1}, b.Strides())
	require.NoError(t, a.Release())
	require.NoError(t, b.Release())
}

func TestWrapExternalArrayRefusals(t *testing.T) {
	mem := make([]float64, 4)
	p := unsafe.Pointer(&mem[0])
	called := false
	release := func() { called = true }
	_, err := WrapExternalArray(p, 32, false, release, Float64, []int{5}, []int{8}, 0)
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = WrapExternalArray(p, 32, false, release, Float64, []int{2}, []int{-8}, 0)
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = WrapExternalArray(p, 32, false, release, DType{}, []int{2}, nil, 0)
	assert.ErrorIs(t, err, ErrType)
	assert.False(t, called, "release ran for an array never made")
}

func TestWrapExternalArrayIsOneAllocation(t *testing.T) {
	mem := make([]float64, 8)
	p := unsafe.Pointer(&mem[0])
	shape, strides := []int{4}, []int{16}
	allocs := testing.AllocsPerRun(100, func() {
		a, err := WrapExternalArray(p, 64, false, nil, Float64, shape, strides, 0)
		if err != nil {
			panic(err)
		}
		_ = a.Release()
	})
	assert.Equal(t, 1.0, allocs)
}
