package memview

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenLayouts is testdata/layouts.json, written by testdata/gen_layouts.py
// from NumPy: basic indexing, transpose and reshape over random layouts, with
// NumPy's results. pyext's C layout rules and the facade are checked against
// the same cases (tests/test_layouts_golden.py).
type goldenLayouts struct {
	NumPy string             `json:"numpy"`
	Cases []goldenLayoutCase `json:"cases"`
}

type goldenLayoutCase struct {
	Itemsize int             `json:"itemsize"`
	Shape    []int           `json:"shape"`
	Strides  []int           `json:"strides"`
	Offset   int             `json:"offset"`
	NBytes   int             `json:"nbytes"`
	Op       string          `json:"op"`
	Arg      json.RawMessage `json:"arg"`
	Want     struct {
		Error   string `json:"error"`
		Shape   []int  `json:"shape"`
		Strides []int  `json:"strides"`
		Offset  int    `json:"offset"`
		Scalar  bool   `json:"scalar"`
		C       bool   `json:"c"`
		F       bool   `json:"f"`
	} `json:"want"`
}

type goldenKeyItem struct {
	Int      *int   `json:"int"`
	Slice    []*int `json:"slice"`
	Ellipsis bool   `json:"ellipsis"`
	NewAxis  bool   `json:"newaxis"`
}

func (it goldenKeyItem) index() Index {
	switch {
	case it.Int != nil:
		return Int(*it.Int)
	case it.Slice != nil:
		x := Index{Kind: IndexSlice}
		if it.Slice[0] != nil {
			x.Start, x.HasStart = *it.Slice[0], true
		}
		if it.Slice[1] != nil {
			x.Stop, x.HasStop = *it.Slice[1], true
		}
		if it.Slice[2] != nil {
			x.Step, x.HasStep = *it.Slice[2], true
		}
		return x
	case it.Ellipsis:
		return Ellipsis()
	default:
		return NewAxis()
	}
}

// pythonClass is the Python exception memview raises for err (pyext/errkind).
func pythonClass(err error) string {
	switch {
	case errors.Is(err, ErrIndex):
		return "IndexError"
	case errors.Is(err, ErrType):
		return "TypeError"
	default:
		return "ValueError"
	}
}

// observable is what elements can tell of a layout: nothing without elements;
// else the offset and the strides of the axes longer than one (NumPy and
// memview may differ elsewhere, and no address depends on it).
func observable(shape, strides []int, offset int) string {
	if slices.Contains(shape, 0) {
		return "no elements"
	}
	var st []int
	for k, n := range shape {
		if n > 1 {
			st = append(st, strides[k])
		}
	}
	return fmt.Sprint(offset, st)
}

func TestLayoutsMatchNumPy(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "layouts.json"))
	require.NoError(t, err)
	var g goldenLayouts
	require.NoError(t, json.Unmarshal(raw, &g))
	require.GreaterOrEqual(t, len(g.Cases), 1000)
	dtypes := map[int]DType{1: Uint8, 2: Int16, 4: Float32, 8: Float64}
	pool := NewCheckedPool(&HostAllocator{})
	defer pool.AssertEmpty(t)
	for i, c := range g.Cases {
		where := fmt.Sprintf("case %d: %s %s of shape %v strides %v", i, c.Op, c.Arg, c.Shape, c.Strides)
		buf, err := NewBuffer(pool, c.NBytes)
		require.NoError(t, err, where)
		a, err := NewArray(buf, dtypes[c.Itemsize], c.Shape, c.Strides, c.Offset, false)
		require.NoError(t, err, where)
		var got *Array
		switch c.Op {
		case "index":
			var items []goldenKeyItem
			require.NoError(t, json.Unmarshal(c.Arg, &items), where)
			key := make([]Index, len(items))
			for k, it := range items {
				key[k] = it.index()
			}
			got, err = a.Index(key...)
		case "transpose":
			var axes []int
			require.NoError(t, json.Unmarshal(c.Arg, &axes), where)
			got, err = a.Transpose(axes...)
		case "reshape":
			var shape []int
			require.NoError(t, json.Unmarshal(c.Arg, &shape), where)
			got, err = a.Reshape(shape...)
		default:
			t.Fatalf("%s: unknown operation", where)
		}
		if c.Want.Error != "" {
			want := c.Want.Error
			if want == "copy" { // memview never copies there
				want = "ValueError"
			}
			require.Error(t, err, where)
			require.Equal(t, want, pythonClass(err), "%s: %v", where, err)
		} else {
			require.NoError(t, err, where)
			l := got.Layout()
			shape := c.Want.Shape
			if shape == nil {
				shape = []int{}
			}
			require.Equal(t, shape, append([]int{}, l.Shape...), where)
			require.Equal(t, c.Want.C, got.CContiguous(), where)
			require.Equal(t, c.Want.F, got.FContiguous(), where)
			require.Equal(t, observable(c.Want.Shape, c.Want.Strides, c.Want.Offset),
				observable(l.Shape, l.Strides, l.Offset-c.Offset), where)
			require.NoError(t, got.Release())
		}
		require.NoError(t, a.Release())
		require.NoError(t, buf.Release())
	}
}
