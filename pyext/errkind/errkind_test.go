package errkind

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/memview/memview/cuda"
	"github.com/memview/memview/memview"
)

func TestOf(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"type", fmt.Errorf("x: %w", memview.ErrType), Type},
		{"index", memview.ErrIndex, Index},
		{"exported", memview.ErrExported, Buffer},
		{"no memory", fmt.Errorf("big: %w", memview.ErrNoMemory), Memory},
		{"invalid", memview.ErrInvalid, Value},
		{"read-only", memview.ErrReadOnly, Value},
		{"released", memview.ErrReleased, Value},
		{"bad device", cuda.ErrInvalidDevice, Value},
		{"bad stream", cuda.ErrInvalidStream, Value},
		{"no device", cuda.ErrNoDevice, CUDA},
		{"other", errors.New("other"), -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Of(c.err, -1))
		})
	}
	// the kinds are bridge.h's: distinct, and none is MV_OK (0)
	seen := map[int]bool{}
	for _, k := range []int{Value, Type, Index, Buffer, Memory, System, CUDA, Runtime} {
		assert.NotZero(t, k)
		assert.False(t, seen[k], "kind %d twice", k)
		seen[k] = true
	}
}
