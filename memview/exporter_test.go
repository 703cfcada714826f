package memview

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// requestGolden is testdata/requests.json, made by gen_requests.py from
// CPython's reference exporter _testbuffer.ndarray.
type requestGolden struct {
	Source    string             `json:"source"`
	Constants map[string]Request `json:"constants"`
	Requests  []struct {
		Name  string  `json:"name"`
		Flags Request `json:"flags"`
	} `json:"requests"`
	Layouts []goldenLayout `json:"layouts"`
}

// goldenLayout is one int32 layout and, per request, whether
// _testbuffer.ndarray serves it.
type goldenLayout struct {
	Name     string `json:"name"`
	Items    int    `json:"items"`
	Shape    []int  `json:"shape"`
	Strides  []int  `json:"strides"`
	Offset   int    `json:"offset"`
	ReadOnly bool   `json:"readonly"`
	C        bool   `json:"c_contiguous"`
	F        bool   `json:"f_contiguous"`
	OK       string `json:"ok"` // per request: '+' served, '-' refused
}

func loadRequestGolden(t *testing.T) *requestGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "requests.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g requestGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Layouts) == 0 || len(g.Requests) == 0 {
		t.Fatal("requests.json has no cases")
	}
	for _, l := range g.Layouts {
		if len(l.OK) != len(g.Requests) || strings.Trim(l.OK, "+-") != "" {
			t.Fatalf("layout %q: ok %q does not match %d requests", l.Name, l.OK, len(g.Requests))
		}
	}
	return &g
}

// build makes the layout as an int32 array over a buffer of Items elements
// holding 0, 1, 2, ..., released when the test ends.
func (gl goldenLayout) build(t *testing.T, p *Pool) *Array {
	t.Helper()
	buf, err := NewBuffer(p, gl.Items*4)
	if err != nil {
		t.Fatal(err)
	}
	flat := must(t)(NewArray(buf, Int32, []int{gl.Items}, nil, 0, false))
	for i := range gl.Items {
		if err := flat.SetFloat64(float64(i), i); err != nil {
			t.Fatal(err)
		}
	}
	a := must(t)(NewArray(buf, Int32, gl.Shape, gl.Strides, gl.Offset, gl.ReadOnly))
	if err := buf.Release(); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestRequestValuesArePyBUF(t *testing.T) {
	g := loadRequestGolden(t)
	ours := map[string]Request{
		"SIMPLE": ReqSimple, "WRITABLE": ReqWritable, "FORMAT": ReqFormat, "ND": ReqND,
		"STRIDES": ReqStrides, "C_CONTIGUOUS": ReqCContiguous, "F_CONTIGUOUS": ReqFContiguous,
		"ANY_CONTIGUOUS": ReqAnyContiguous, "INDIRECT": ReqIndirect, "CONTIG": ReqContig,
		"CONTIG_RO": ReqContigRO, "STRIDED": ReqStrided, "STRIDED_RO": ReqStridedRO,
		"RECORDS": ReqRecords, "RECORDS_RO": ReqRecordsRO, "FULL": ReqFull, "FULL_RO": ReqFullRO,
	}
	if len(g.Constants) != len(ours) {
		t.Fatalf("golden has %d constants, we have %d", len(g.Constants), len(ours))
	}
	for name, want := range g.Constants {
		if got, ok := ours[name]; !ok || got != want {
			t.Errorf("PyBUF_%s = %#x, memview has %#x", name, uint32(want), uint32(got))
		}
	}
}

func TestRequestString(t *testing.T) {
	for _, c := range []struct {
		r    Request
		want string
	}{
		{ReqSimple, "ReqSimple"},
		{ReqWritable, "ReqWritable"},
		{ReqND, "ReqND"},
		{ReqFormat | ReqND, "ReqND|ReqFormat"},
		{ReqStrided, "ReqStrided"},
		{ReqStridedRO, "ReqStrides"},
		{ReqRecords, "ReqRecords"},
		{ReqFull, "ReqFull"},
		{ReqFullRO, "ReqFullRO"},
		{ReqCContiguous | ReqWritable, "ReqCContiguous|ReqWritable"},
		{ReqCContiguous | ReqFContiguous, "ReqCContiguous|ReqFContiguous"},
		{ReqAnyContiguous | ReqFormat, "ReqAnyContiguous|ReqFormat"},
		{ReqND | 0x2, "ReqND|0x2"},
	} {
		if got := c.r.String(); got != c.want {
			t.Errorf("Request(%#x).String() = %q, want %q", uint32(c.r), got, c.want)
		}
	}
}

// lyingExporter hands out a view of its array whatever the request, so
// that Export's own verification is what decides; it counts ReleaseView.
type lyingExporter struct {
	arr      *Array
	views    atomic.Int64
	released atomic.Int64
}

func (x *lyingExporter) Available() bool { return true }
func (x *lyingExporter) View(Request) (*Array, error) {
	x.views.Add(1)
	return x.arr.Index()
}
func (x *lyingExporter) ReleaseView(a *Array) error {
	x.released.Add(1)
	return a.Release()
}

// TestExportRequestMatrix exports every golden layout for every golden
// request, through an ArrayExporter (which refuses in View) and through a
// lying exporter (refused by Export itself): each succeeds exactly when
// _testbuffer.ndarray does, and a refused view is given back at once.
func TestExportRequestMatrix(t *testing.T) {
	g := loadRequestGolden(t)
	t.Logf("golden from %s: %d layouts x %d requests", g.Source, len(g.Layouts), len(g.Requests))
	for _, gl := range g.Layouts {
		t.Run(gl.Name, func(t *testing.T) {
			p := newTestPool(t)
			a := gl.build(t, p)
			if a.CContiguous() != gl.C || a.FContiguous() != gl.F {
				t.Fatalf("contiguity C=%t F=%t, _testbuffer says C=%t F=%t", a.CContiguous(), a.FContiguous(), gl.C, gl.F)
			}
			x, err := NewArrayExporter(a)
			if err != nil {
				t.Fatal(err)
			}
			liar := &lyingExporter{arr: a}
			for i, r := range g.Requests {
				want := gl.OK[i] == '+'
				var wantErr error
				if !want {
					wantErr = ErrInvalid
					if r.Flags.Has(ReqWritable) && gl.ReadOnly {
						wantErr = ErrReadOnly
					}
				}
				if err := r.Flags.Check(a); (err == nil) != want || (err != nil && !errors.Is(err, wantErr)) {
					t.Errorf("%s: Check: %v, want ok=%t (%v)", r.Name, err, want, wantErr)
				}
				for _, e := range []Exporter{x, liar} {
					before := liar.released.Load()
					out, err := Export(e, r.Flags)
					if (err == nil) != want || (err != nil && !errors.Is(err, wantErr)) {
						t.Errorf("%s via %T: %v, want ok=%t (%v)", r.Name, e, err, want, wantErr)
					}
					if err != nil {
						if e == liar && liar.released.Load() != before+1 {
							t.Errorf("%s: the refused view was not given back", r.Name)
						}
						continue
					}
					checkExported(t, a, out)
					if err := out.Release(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if n := x.Views(); n != 0 {
				t.Errorf("%d views live after the matrix", n)
			}
			if v, r := liar.views.Load(), liar.released.Load(); v != r {
				t.Errorf("lying exporter: %d views, %d given back", v, r)
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkExported checks that out shows src's elements in place: same
// metadata, same element addresses and values, a buffer of exactly the
// bytes src reaches.
func checkExported(t *testing.T, src, out *Array) {
	t.Helper()
	if out.DType() != src.DType() || !slices.Equal(out.Shape(), src.Shape()) ||
		!slices.Equal(out.Strides(), src.Strides()) || out.ReadOnly() != src.ReadOnly() ||
		out.Device() != src.Device() {
		t.Fatalf("exported %v, want the metadata of %v", out, src)
	}
	if out.Pointer() != src.Pointer() {
		t.Fatalf("exported element 0 at %p, source at %p: not zero-copy", out.Pointer(), src.Pointer())
	}
	lo, hi := src.Layout().Span()
	if out.Buffer().Len() != hi-lo || out.Offset() != -lo {
		t.Fatalf("exported buffer of %d bytes, offset %d; want %d, %d", out.Buffer().Len(), out.Offset(), hi-lo, -lo)
	}
	if src.Device().HostAccessible() && !slices.Equal(values(t, out), values(t, src)) {
		t.Fatalf("exported values %v, want %v", values(t, out), values(t, src))
	}
}

// countingExporter is an ArrayExporter that counts View and ReleaseView
// calls and remembers ReleaseView's arguments.
type countingExporter struct {
	*ArrayExporter
	mu       sync.Mutex
	views    int
	released map[*Array]int
}

func newCountingExporter(t *testing.T, a *Array) *countingExporter {
	t.Helper()
	x, err := NewArrayExporter(a)
	if err != nil {
		t.Fatal(err)
	}
	return &countingExporter{ArrayExporter: x, released: map[*Array]int{}}
}

func (c *countingExporter) View(r Request) (*Array, error) {
	v, err := c.ArrayExporter.View(r)
	if err == nil {
		c.mu.Lock()
		c.views++
		c.mu.Unlock()
	}
	return v, err
}

func (c *countingExporter) ReleaseView(a *Array) error {
	c.mu.Lock()
	c.released[a]++
	c.mu.Unlock()
	return c.ArrayExporter.ReleaseView(a)
}

// check verifies that every view handed out was given back exactly once.
func (c *countingExporter) check(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.released) != c.views {
		t.Errorf("%d views handed out, %d distinct given back", c.views, len(c.released))
	}
	for a, n := range c.released {
		if n != 1 {
			t.Errorf("ReleaseView called %d times for %v", n, a)
		}
	}
	if n := c.Views(); n != 0 {
		t.Errorf("%d views still live", n)
	}
}

func (c *countingExporter) releases() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.released {
		n += k
	}
	return n
}

// TestExportReleaseAfterLastView: ReleaseView runs once, when the last of
// the exported array and the views made from it is released, in any order.
func TestExportReleaseAfterLastView(t *testing.T) {
	orders := [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}}
	for _, order := range orders {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			p := newTestPool(t)
			a := arange(t, p, Float64, 4, 6)
			c := newCountingExporter(t, a)
			out, err := Export(c, ReqRecords)
			if err != nil {
				t.Fatal(err)
			}
			v1, err := out.Index(SliceStep(-1), Slice(1, 5, 2))
			if err != nil {
				t.Fatal(err)
			}
			v2, err := v1.Transpose()
			if err != nil {
				t.Fatal(err)
			}
			v3, err := out.AsReadOnly()
			if err != nil {
				t.Fatal(err)
			}
			v4, err := out.Reshape(24)
			if err != nil {
				t.Fatal(err)
			}
			arrs := []*Array{out, v1, v2, v3, v4}
			if x, _ := v2.Float64(1, 0); x != 21 {
				t.Fatalf("view of a view reads %v, want 21", x)
			}
			for i, k := range order {
				if n := c.releases(); n != 0 {
					t.Fatalf("ReleaseView called with %d of %d arrays still live", len(order)-i, len(order))
				}
				if err := arrs[k].Release(); err != nil {
					t.Fatal(err)
				}
			}
			if n := c.releases(); n != 1 {
				t.Fatalf("ReleaseView called %d times, want 1", n)
			}
			c.check(t)
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestExportNested exports an exported array again, through an
// ArrayExporter over it: releasing the outer consumers gives the inner view
// back, and then the first exporter's.
func TestExportNested(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Int16, 3, 4)
	inner := newCountingExporter(t, a)
	mid, err := Export(inner, ReqStrided)
	if err != nil {
		t.Fatal(err)
	}
	col, err := mid.Index(Full(), Int(2))
	if err != nil {
		t.Fatal(err)
	}
	if err := mid.Release(); err != nil {
		t.Fatal(err)
	}
	outer := newCountingExporter(t, col)
	if err := col.Release(); err != nil {
		t.Fatal(err)
	}
	var outs []*Array
	for range 3 {
		o, err := Export(outer, ReqStridedRO|ReqFormat)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, o)
	}
	if got := values(t, outs[2]); !slices.Equal(got, floats(2, 6, 10)) {
		t.Fatalf("nested export reads %v", got)
	}
	if _, err := Export(outer, ReqCContiguous); !errors.Is(err, ErrInvalid) {
		t.Fatalf("C-contiguous export of a column: %v", err)
	}
	for _, o := range outs {
		if err := o.Release(); err != nil {
			t.Fatal(err)
		}
	}
	outer.check(t)
	if inner.releases() != 0 {
		t.Fatal("inner view given back while the outer exporter holds it")
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if inner.releases() != 1 {
		t.Fatalf("inner ReleaseView called %d times, want 1", inner.releases())
	}
	inner.check(t)
	if err := inner.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestExportConcurrent exports from many goroutines at once, each making
// views of views and releasing them in its own order (run it with -race).
func TestExportConcurrent(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Int64, 8, 16)
	c := newCountingExporter(t, a)
	const workers, rounds = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				out, err := Export(c, ReqFull)
				if err != nil {
					errs <- err
					return
				}
				row, err := out.Index(Int(w % 8))
				if err != nil {
					errs <- err
					return
				}
				// Each worker writes its own cells: row w%8, columns
				// 8*(w/8) to 8*(w/8)+7.
				if err := row.SetFloat64(float64(w), 8*(w/8)+r%8); err != nil {
					errs <- err
					return
				}
				t2, err := out.Transpose()
				if err != nil {
					errs <- err
					return
				}
				order := []*Array{out, row, t2}
				if (w+r)%2 == 1 {
					slices.Reverse(order)
				}
				for _, v := range order {
					if err := v.Release(); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w := range workers {
		if v, _ := a.Float64(w%8, 8*(w/8)); v != float64(w) {
			t.Errorf("worker %d's write reads %v", w, v)
		}
	}
	if n := c.releases(); n != workers*rounds {
		t.Fatalf("ReleaseView called %d times, want %d", n, workers*rounds)
	}
	c.check(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// scriptedExporter returns what it is told to and records the calls.
type scriptedExporter struct {
	available  bool
	view       func(Request) (*Array, error)
	releaseErr error
	calls      []string
}

func (s *scriptedExporter) Available() bool {
	s.calls = append(s.calls, "Available")
	return s.available
}
func (s *scriptedExporter) View(r Request) (*Array, error) {
	s.calls = append(s.calls, "View")
	return s.view(r)
}
func (s *scriptedExporter) ReleaseView(a *Array) error {
	s.calls = append(s.calls, "ReleaseView")
	if err := a.Release(); err != nil {
		return err
	}
	return s.releaseErr
}

func TestExportRefusals(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Float32, 2, 3)
	plain := errors.New("camera unplugged")
	cases := []struct {
		name      string
		e         *scriptedExporter
		req       Request
		want      error
		wantCalls []string
	}{
		{"not available", &scriptedExporter{view: func(Request) (*Array, error) { return a.Index() }},
			ReqSimple, ErrInvalid, []string{"Available"}},
		{"view refuses with a sentinel", &scriptedExporter{available: true, view: func(Request) (*Array, error) {
			return nil, fmt.Errorf("no: %w", ErrReadOnly)
		}}, ReqWritable, ErrReadOnly, []string{"Available", "View"}},
		{"view fails without a sentinel", &scriptedExporter{available: true, view: func(Request) (*Array, error) {
			return nil, plain
		}}, ReqSimple, ErrInvalid, []string{"Available", "View"}},
		{"view returns nothing", &scriptedExporter{available: true, view: func(Request) (*Array, error) {
			return nil, nil
		}}, ReqSimple, ErrInvalid, []string{"Available", "View"}},
		{"view returns a released array", &scriptedExporter{available: true, view: func(Request) (*Array, error) {
			v, err := a.Index()
			if err == nil {
				err = v.Release()
			}
			return v, err
		}}, ReqSimple, ErrReleased, []string{"Available", "View", "ReleaseView"}},
		{"view breaks the request", &scriptedExporter{available: true, view: func(Request) (*Array, error) {
			return a.Transpose()
		}}, ReqCContiguous, ErrInvalid, []string{"Available", "View", "ReleaseView"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Export(c.e, c.req)
			if out != nil || !errors.Is(err, c.want) {
				t.Fatalf("Export = %v, %v; want an error wrapping %v", out, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "memview: export of *memview.scriptedExporter") {
				t.Errorf("error without context: %v", err)
			}
			if !slices.Equal(c.e.calls, c.wantCalls) {
				t.Errorf("calls %v, want %v", c.e.calls, c.wantCalls)
			}
		})
	}
	if _, err := Export(nil, ReqSimple); !errors.Is(err, ErrInvalid) {
		t.Errorf("Export(nil): %v", err)
	}
	if _, err := Export(&scriptedExporter{available: true, view: func(Request) (*Array, error) { return nil, plain }}, ReqSimple); !errors.Is(err, plain) {
		t.Errorf("Export lost View's error: %v", err)
	}
}

// TestExportReleaseErrors: an error from ReleaseView reaches the handler
// (the Release that triggered it succeeds), or joins the refusal.
func TestExportReleaseErrors(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Uint8, 5)
	bad := errors.New("bookkeeping broken")
	var got []error
	var mu sync.Mutex
	prev := SetReleaseErrorHandler(func(err error) {
		mu.Lock()
		got = append(got, err)
		mu.Unlock()
	})
	//lint:ignore SA9010 the handler returned is the previous one, restored here, not a function to call
	defer SetReleaseErrorHandler(prev)

	e := &scriptedExporter{available: true, releaseErr: bad, view: func(Request) (*Array, error) { return a.Index() }}
	out, err := Export(e, ReqSimple)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if len(got) != 1 || !errors.Is(got[0], bad) || !strings.Contains(got[0].Error(), "memview: release of a view of *memview.scriptedExporter") {
		t.Fatalf("handler got %v", got)
	}

	e = &scriptedExporter{available: true, releaseErr: bad, view: func(Request) (*Array, error) { return a.AsReadOnly() }}
	_, err = Export(e, ReqWritable)
	if !errors.Is(err, ErrReadOnly) || !errors.Is(err, bad) {
		t.Fatalf("refusal with a failing ReleaseView: %v", err)
	}

	if h := SetReleaseErrorHandler(nil); h == nil {
		t.Fatal("SetReleaseErrorHandler did not return the handler it replaced")
	}
	if h := SetReleaseErrorHandler(prev); h != nil {
		t.Fatal("the default handler is not nil")
	}
}

func TestArrayExporterLifetime(t *testing.T) {
	p := newTestPool(t)
	a, err := Empty(p, []int{2, 2}, Float64, 'C')
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewArrayExporter(a)
	if err != nil {
		t.Fatal(err)
	}
	// The owner's array may go: the exporter holds its own reference.
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewArrayExporter(a); !errors.Is(err, ErrReleased) {
		t.Fatalf("exporter of a released array: %v", err)
	}
	out, err := Export(x, ReqContig)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Array().SetFloat64(7, 1, 1); err != nil {
		t.Fatal(err)
	}
	if v, _ := out.Float64(1, 1); v != 7 {
		t.Fatalf("consumer reads %v, want 7", v)
	}
	if err := x.Close(); !errors.Is(err, ErrExported) || !x.Available() {
		t.Fatalf("Close with a live view: %v (available %t)", err, x.Available())
	}
	if err := x.ReleaseView(out); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ReleaseView of a consumer's array: %v", err)
	}
	if err := out.Release(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if x.Available() {
		t.Fatal("closed exporter is available")
	}
	if _, err := x.View(ReqSimple); !errors.Is(err, ErrReleased) {
		t.Fatalf("View after Close: %v", err)
	}
	if _, err := Export(x, ReqSimple); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Export after Close: %v", err)
	}
	if err := x.Close(); !errors.Is(err, ErrReleased) {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := NewArrayExporter(nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("exporter of nil: %v", err)
	}
}

// TestExportReadOnlyAndDevice: the exported buffer keeps the read-only flag
// and the device, and exports of empty arrays reach no bytes.
func TestExportReadOnlyAndDevice(t *testing.T) {
	p := newTestPool(t)
	a := arange(t, p, Int32, 3, 4)
	ro := must(t)(a.AsReadOnly())
	x, err := NewArrayExporter(ro)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Export(x, ReqStridedRO)
	if err != nil {
		t.Fatal(err)
	}
	if !out.ReadOnly() || out.Buffer().Mutable() {
		t.Fatal("export of a read-only array is writable")
	}
	wantErr(t, out.SetFloat64(1, 0, 0), ErrReadOnly)
	if err := out.Release(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	empty := must(t)(a.Index(Slice(2, 2, 1)))
	x, err = NewArrayExporter(empty)
	if err != nil {
		t.Fatal(err)
	}
	out, err = Export(x, ReqSimple)
	if err != nil {
		t.Fatal(err)
	}
	if out.Buffer().Len() != 0 || !slices.Equal(out.Shape(), []int{0, 4}) {
		t.Fatalf("empty export: %v over %d bytes", out, out.Buffer().Len())
	}
	if err := out.Release(); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	released := false
	dev := Device{Kind: CUDA, ID: 1}
	buf := WrapDevice(0x7f0000001000, 96, false, dev, func() { released = true })
	d, err := NewArray(buf, Float32, []int{4, 6}, nil, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := buf.Release(); err != nil {
		t.Fatal(err)
	}
	x, err = NewArrayExporter(d)
	if err != nil {
		t.Fatal(err)
	}
	out, err = Export(x, ReqFull)
	if err != nil {
		t.Fatal(err)
	}
	checkExported(t, d, out)
	if _, err := NewView[float32](out); !errors.Is(err, ErrInvalid) {
		t.Fatalf("View of device memory: %v", err)
	}
	for _, err := range []error{out.Release(), x.Close(), d.Release()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !released {
		t.Fatal("device buffer not released")
	}
}
