package memview

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShapeAndStridesCopiesNeedNoHeap(t *testing.T) {
	a, err := Empty(nil, []int{2, 3}, Float64, 'C')
	require.NoError(t, err)
	defer func() { require.NoError(t, a.Release()) }()
	n := 0
	allocs := testing.AllocsPerRun(100, func() { n += a.Shape()[0] * a.Strides()[1] })
	assert.Equal(t, 0.0, allocs)
	s := a.Shape()
	s[0] = 99 // a copy
	assert.Equal(t, []int{2, 3}, a.Shape())
}
