package memview

import (
	"errors"
	"testing"
)

func TestCanonical(t *testing.T) {
	cases := []struct {
		name    string
		formats []string // every spelling of one layout
		want    string
	}{
		{"float64", []string{"d", "1d", "d ", "<d", "=d", "@d", " d\t", "d<"}, "<d"},
		{"float16", []string{"e", "e=", "<e"}, "<e"},
		{"big uint32", []string{">L", ">L ", ">I", "!I", "!L"}, ">I"},
		{"int64", []string{"q", "l", "@l", "n", "<q", "=q"}, "<q"},
		{"uint64", []string{"Q", "L", "N", "P"}, "<Q"},
		{"int32", []string{"i", "<l", "=l"}, "<i"},
		{"bytes of one", []string{"c", "1s", "s"}, "<1s"},
		{"bytes of three", []string{"3c", "3s"}, "<3s"},
		{"sub-array", []string{"3d", "(3)d", "<(3)d"}, "<(3)d"},
		{"shaped chars", []string{"(2)c", "(2)s"}, "<(2)1s"},
		{"record", []string{"T{<i:a:<d:b:}", "<i:a:<d:b:", "T{i:a:=d:b:}"}, "<T{i:a:d:b:}"},
		{"aligned record", []string{"T{i:a:d:b:}", "i:a:d:b:", "T{<i:a:4xd:b:}"}, "<T{i:a:4xd:b:}"},
		{"named field", []string{"d:x:", "T{d:x:}"}, "<T{d:x:}"},
		{"record of one", []string{"T{d}"}, "<T{d}"},
		{"nested", []string{"T{T{d}}"}, "<T{T{d}}"},
		{"mixed order", []string{"<h>h", "T{<h>h}"}, "<T{h>h}"},
		{"big first", []string{">hb<h"}, ">T{hb<h}"},
		{"named void", []string{"x:a:i", "T{1x:a:3x<i}"}, "<T{1x:a:3xi}"},
		{"pascal", []string{"i0pi"}, "<T{i0pi}"},
		{"complex32", []string{"Ze", "<Ze"}, "<Ze"},
		{"padding only", []string{"4x", "T{4x}"}, "<T{4x}"},
		{"trailing padding", []string{"dx", "T{<dx}"}, "<T{d1x}"},
		{"aligned record size", []string{"T{dx}", "T{d8x}"}, "<T{d8x}"},
		{"record then padding", []string{"T{i:a:}x"}, "<T{T{i:a:}1x}"},
		{"zero-length field", []string{"b0i:z:", "T{b3x(0)i:z:}"}, "<T{b3x(0)i:z:}"},
		{"records array", []string{"2T{d:a:b:b:}"}, "<(2)T{d:a:b:b:7x}"},
	}
	for _, c := range cases {
		for _, f := range c.formats {
			d, err := ParseFormat(f)
			if err != nil {
				t.Fatalf("%s: ParseFormat(%q): %v", c.name, f, err)
			}
			if got := d.Canonical(); got != c.want {
				t.Errorf("%s: Canonical(%q) = %q, want %q", c.name, f, got, c.want)
			}
		}
	}
}

func TestCanonicalDistinguishesLayouts(t *testing.T) {
	// pairs NumPy also tells apart
	distinct := [][2]string{
		{"d", ">d"}, {"d", "T{d}"}, {"d", "(1)d"}, {"2i", "ii"}, {"i", "I"}, {"?", "B"},
		{"3s", "3p"}, {"T{i:a:}", "T{i:b:}"}, {"e", "H"}, {"Zf", "2f"}, {"q", "d"},
		{"T{i:a:d:b:}", "T{i:a:<d:b:}"}, {"3x:v:", "3s:v:"},
	}
	for _, p := range distinct {
		a, b := mustParse(t, p[0]).Canonical(), mustParse(t, p[1]).Canonical()
		if a == b {
			t.Errorf("Canonical(%q) == Canonical(%q) == %q", p[0], p[1], a)
		}
	}
}

func TestSameLayoutAndNames(t *testing.T) {
	cases := []struct {
		format, name string
		basic        DType
		normal       string // the format new arrays of the layout export (DType.Normal)
	}{
		{"1d", "float64", Float64, "d"}, {"d ", "float64", Float64, "d"}, {"e=", "float16", Float16, "e"},
		{"P", "uint64", Uint64, "L"}, {"n", "int64", Int64, "l"}, {"<l", "int32", Int32, "i"},
		{">L ", ">u4", DType{}, ">I"}, {"c", "|S1", DType{}, "<1s"}, {"3c", "|S3", DType{}, "<3s"},
		{"Ze", "<c4", DType{}, "<Ze"}, {">Ze", ">c4", DType{}, ">Ze"}, {"T{<i:a:<d:b:}", "<T{i:a:d:b:}", DType{}, "<i:a:d:b:"},
		{"(2,3)f", "<(2,3)f", DType{}, "(2,3)<f"}, {"x:a:i", "<T{1x:a:3xi}", DType{}, "<1x:a:3xi"}, {"p", "<1p", DType{}, "<1p"},
		{"ix", "<T{i1x}", DType{}, "<i1x"}, {"i:a:b:b:", "<T{i:a:b:b:}", DType{}, "<i:a:b:b:"},
	}
	for _, c := range cases {
		dt, err := DTypeFromFormat(c.format)
		if err != nil {
			t.Fatalf("DTypeFromFormat(%q): %v", c.format, err)
		}
		if dt.Name() != c.name || dt.Format() != c.format {
			t.Errorf("DTypeFromFormat(%q): name %q format %q, want %q and the format itself", c.format, dt.Name(), dt.Format(), c.name)
		}
		if n := dt.Normal(); n.Format() != c.normal || !n.SameLayout(dt) || n.IsBasic() != c.basic.IsValid() || n.Normal() != n {
			t.Errorf("DTypeFromFormat(%q).Normal(): format %q (basic %v), want %q", c.format, n.Format(), n.IsBasic(), c.normal)
		}
		back, err := ParseDType(dt.Name())
		if err != nil || !back.SameLayout(dt) {
			t.Errorf("ParseDType(%q) = %v, %v: not the layout of %q", dt.Name(), back, err, c.format)
		}
		if c.basic.IsValid() && (!dt.SameLayout(c.basic) || !c.basic.SameLayout(dt) || dt.basicOf() != c.basic) {
			t.Errorf("%q is not the same layout as %s", c.format, c.basic)
		}
	}
	if Float64.SameLayout(DType{}) || (DType{}).SameLayout(DType{}) || Float64.SameLayout(Int64) {
		t.Error("SameLayout of different or invalid types")
	}
}

func TestPascalCodeIsTheStructOne(t *testing.T) {
	dt, err := ParseDType("p")
	if err != nil || dt.Itemsize() != 1 {
		t.Fatalf(`ParseDType("p") = %v (%d bytes), %v; want the 1-byte Pascal string struct reads`, dt, dt.Itemsize(), err)
	}
	if _, err := ParseDType("intp"); err != nil {
		t.Fatal(err)
	}
}

func TestCopyBetweenSpellings(t *testing.T) {
	p := newTestPool(t)
	for _, pair := range [][2]string{{"1d", "d"}, {"c", "1s"}, {">L ", "!I"}, {"3d", "(3)d"}} {
		src := must(t)(Empty(p, []int{4}, mustDType(t, pair[0]), 'C'))
		dst := must(t)(Empty(p, []int{4}, mustDType(t, pair[1]), 'C'))
		if err := CopyInto(dst, src); err != nil {
			t.Errorf("copy %s into %s: %v", pair[0], pair[1], err)
		}
	}
	src := must(t)(Empty(p, []int{2}, Float64, 'C'))
	dst := must(t)(Empty(p, []int{2}, mustDType(t, ">d"), 'C'))
	if err := CopyInto(dst, src); !errors.Is(err, ErrType) {
		t.Errorf("copy float64 into >d: %v, want ErrType", err)
	}
}

func mustDType(t *testing.T, s string) DType {
	t.Helper()
	d, err := ParseDType(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
