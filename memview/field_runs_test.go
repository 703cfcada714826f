package memview

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFieldRuns(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		want         []ByteRun
	}{
		{"a basic type", "d", nil},
		{"a record with no gap", "T{<i:a:<i:b:}", nil},
		{"NumPy's multi-field view", "T{<I:a:2x<H:c:}", []ByteRun{{0, 4}, {6, 2}}},
		{"a field at an offset", "T{xxh:x:4x}", []ByteRun{{2, 2}}},
		{"struct's padding", "ix", []ByteRun{{0, 4}}},
		{"aligned record", "T{b:a:d:b:}", []ByteRun{{0, 1}, {8, 8}}},
		{"named void bytes count", "T{b:a:3x:v:<i:b:}", nil},
		{"sub-array of records with gaps", "(2)T{b:a:x}", []ByteRun{{0, 1}, {2, 1}}},
		{"nested", "T{<i:a:T{<h:x:2x<f:y:}:r:}", []ByteRun{{0, 6}, {8, 4}}},
		{"padding only is opaque bytes", "4x", nil},
		{"a record of padding is opaque too", "T{4x}", nil},
		{"a field of no bytes", "4x0i:z:", []ByteRun{}},
		{"an empty array of records", "T{(0)T{Q:n0:}:f0:8x}", []ByteRun{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dt, err := DTypeFromFormat(tc.format)
			require.NoError(t, err)
			assert.Equal(t, tc.want, dt.FieldRuns())
		})
	}
	assert.Nil(t, Float64.FieldRuns())
}

// gapsOf returns the bytes of buf that no run of an item of itemsize holds.
func gapsOf(buf []byte, itemsize int, runs []ByteRun) []byte {
	var out []byte
	for i := range buf {
		in := false
		for _, r := range runs {
			if o := i % itemsize; o >= r.Offset && o < r.Offset+r.Len {
				in = true
			}
		}
		if !in {
			out = append(out, buf[i])
		}
	}
	return out
}

func TestWritesLeaveGaps(t *testing.T) {
	p := newTestPool(t)
	dt, err := DTypeFromFormat("T{<I:a:2x<H:c:}") // NumPy's full[["a", "c"]] of (u4, u2, u2)
	require.NoError(t, err)
	runs := dt.FieldRuns()
	mem := make([]byte, 8*6)
	reset := func() {
		for i := range mem {
			mem[i] = byte(0xa0 + i)
		}
	}
	reset()
	before := gapsOf(mem, 8, runs)
	buf := WrapGo(unsafe.Pointer(unsafe.SliceData(mem)), len(mem), false)
	a, err := NewArray(buf, dt, []int{6}, nil, 0, false)
	require.NoError(t, err)
	release(t, a)
	// a fill with a record whose gap bytes are not zero
	require.NoError(t, a.FillBytes(bytes.Repeat([]byte{1}, 8)))
	assert.Equal(t, before, gapsOf(mem, 8, runs), "fill")
	for i := 0; i < 6; i++ {
		assert.Equal(t, []byte{1, 1, 1, 1}, mem[8*i:8*i+4])
		assert.Equal(t, []byte{1, 1}, mem[8*i+6:8*i+8])
	}
	// copies: reversed onto itself (overlapping), and from another array
	reset()
	rev, err := a.Index(Index{Kind: IndexSlice, Step: -1, HasStep: true})
	require.NoError(t, err)
	release(t, rev)
	want := bytes.Clone(mem)
	for i := 0; i < 6; i++ {
		j := 5 - i
		copy(want[8*i:8*i+4], mem[8*j:8*j+4])
		copy(want[8*i+6:8*i+8], mem[8*j+6:8*j+8])
	}
	require.NoError(t, CopyInto(a, rev))
	assert.Equal(t, want, mem, "a[:] = a[::-1]")
	other, err := Empty(p, []int{6}, dt, 'C')
	require.NoError(t, err)
	release(t, other)
	require.NoError(t, other.FillBytes(bytes.Repeat([]byte{7}, 8)))
	before = gapsOf(mem, 8, runs)
	require.NoError(t, CopyData(a, other))
	assert.Equal(t, before, gapsOf(mem, 8, runs), "copy data")
	// two views of one buffer whose items are 2 bytes apart: as if through a temporary
	reset()
	x, err := NewArray(buf, dt, []int{5}, nil, 0, false)
	require.NoError(t, err)
	release(t, x)
	y, err := NewArray(buf, dt, []int{5}, nil, 2, false)
	require.NoError(t, err)
	release(t, y)
	require.NoError(t, buf.Release()) // the arrays hold their own references
	want = bytes.Clone(mem)
	src := bytes.Clone(mem)
	for i := 0; i < 5; i++ {
		copy(want[8*i:8*i+4], src[8*i+2:8*i+6])
		copy(want[8*i+6:8*i+8], src[8*i+8:8*i+10])
	}
	require.NoError(t, CopyInto(x, y))
	assert.Equal(t, want, mem, "overlapping record views")
}
