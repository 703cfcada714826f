package memview

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFieldViews(t *testing.T) {
	dt, err := DTypeFromFormat("T{<I:a:<H:b:(2,3)<f:m:3c:s:T{<h:x:}:r:}")
	require.NoError(t, err)
	for _, tc := range []struct {
		name, elem string
		offset     int
		shape      []int
		strides    []int
	}{
		{"a", "uint32", 0, nil, nil},
		{"b", "uint16", 4, nil, nil},
		{"m", "float32", 6, []int{2, 3}, []int{12, 4}},
		{"s", "|S3", 30, nil, nil},
		{"r", "<T{h:x:}", 33, nil, nil},
	} {
		v, err := dt.Field(tc.name)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.elem, v.DType.Name(), tc.name)
		assert.Equal(t, tc.offset, v.Offset, tc.name)
		assert.Equal(t, tc.shape, v.Shape, tc.name)
		assert.Equal(t, tc.strides, v.Strides, tc.name)
	}
	_, err = dt.Field("z")
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = Float64.Field("a")
	assert.ErrorIs(t, err, ErrType)

	sel, err := dt.Select("a", "m")
	require.NoError(t, err)
	assert.Equal(t, dt.Itemsize(), sel.Itemsize())
	assert.Equal(t, []ByteRun{{0, 4}, {6, 24}}, sel.FieldRuns())
	_, err = dt.Select("m", "a")
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = dt.Select("a", "a")
	assert.ErrorIs(t, err, ErrInvalid)
}

func TestArrayFieldViews(t *testing.T) {
	p := newTestPool(t)
	dt, err := DTypeFromFormat("T{<I:a:<H:b:<H:c:}")
	require.NoError(t, err)
	a, err := Empty(p, []int{3}, dt, 'C')
	require.NoError(t, err)
	release(t, a)
	b, err := a.Field("b")
	require.NoError(t, err)
	release(t, b)
	assert.Equal(t, []int{3}, b.Shape())
	assert.Equal(t, []int{8}, b.Strides())
	require.NoError(t, b.SetFloat64(7, 1))
	ac, err := a.Fields("a", "c")
	require.NoError(t, err)
	release(t, ac)
	require.NoError(t, ac.FillBytes([]byte{1, 2, 3, 4, 9, 9, 5, 6}))
	raw := unsafe.Slice((*byte)(a.Pointer()), a.NBytes())
	assert.Equal(t, []byte{1, 2, 3, 4, 7, 0, 5, 6}, raw[8:16]) // b kept its 7
}
