package pymsg

import (
	"errors"
	"fmt"
	"testing"

	"github.com/memview/memview/memview"
)

func TestText(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"suffix", fmt.Errorf("sigproc.Mean: empty array: %w", memview.ErrInvalid), "sigproc.Mean: empty array"},
		{"type", fmt.Errorf("mypkg: a View[float64] needs a float64 array, not int8: %w", memview.ErrType),
			"mypkg: a View[float64] needs a float64 array, not int8"},
		{"nested memview context", fmt.Errorf("sigproc.Scale: %w",
			fmt.Errorf("memview: a View[float64] needs a float64 array, not uint8: %w", memview.ErrType)),
			"sigproc.Scale: a View[float64] needs a float64 array, not uint8"},
		{"in parentheses", fmt.Errorf("gopy: handle 7 unknown: the Go object is gone (%w)", memview.ErrInvalid),
			"gopy: handle 7 unknown: the Go object is gone"},
		{"in the middle", fmt.Errorf("%w: while scaling", fmt.Errorf("mypkg: bad axis: %w", memview.ErrIndex)),
			"mypkg: bad axis: while scaling"},
		{"bare context keeps the sentinel", fmt.Errorf("gopkg.Fail(%q): %w", "readonly", memview.ErrReadOnly),
			`gopkg.Fail("readonly"): array is read-only`},
		{"bare context, index", fmt.Errorf("gopkg.FailValue: %w", memview.ErrIndex), "gopkg.FailValue: index error"},
		{"a sentence without a colon", fmt.Errorf("a *rgbimage.Image is needed here, not a *gopkg.Count: %w",
			memview.ErrInvalid), "a *rgbimage.Image is needed here, not a *gopkg.Count"},
		{"plain error", errors.New("gopkg.Fail: a plain Go error"), "gopkg.Fail: a plain Go error"},
		{"nil", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Text(c.err); got != c.want {
				t.Errorf("Text = %q, want %q", got, c.want)
			}
		})
	}
}

func TestTuple(t *testing.T) {
	for _, c := range []struct {
		dims []int
		want string
	}{{nil, "()"}, {[]int{5}, "(5,)"}, {[]int{3, 4}, "(3, 4)"}, {[]int{-8, 16, 0}, "(-8, 16, 0)"}} {
		if got := Tuple(c.dims); got != c.want {
			t.Errorf("Tuple(%v) = %q, want %q", c.dims, got, c.want)
		}
	}
}
