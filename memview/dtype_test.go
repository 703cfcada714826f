package memview

import (
	"cmp"
	"errors"
	"strings"
	"testing"
)

func TestDTypeProperties(t *testing.T) {
	for _, tc := range []struct {
		dt                    DType
		name, typestr, format string
		size                  int
		kind                  byte
	}{
		{Bool, "bool", "|b1", "?", 1, 'b'},
		{Int8, "int8", "|i1", "b", 1, 'i'},
		{Int16, "int16", "<i2", "h", 2, 'i'},
		{Int32, "int32", "<i4", "i", 4, 'i'},
		{Int64, "int64", "<i8", "l", 8, 'i'},
		{Uint8, "uint8", "|u1", "B", 1, 'u'},
		{Uint16, "uint16", "<u2", "H", 2, 'u'},
		{Uint32, "uint32", "<u4", "I", 4, 'u'},
		{Uint64, "uint64", "<u8", "L", 8, 'u'},
		{Float16, "float16", "<f2", "e", 2, 'f'},
		{Float32, "float32", "<f4", "f", 4, 'f'},
		{Float64, "float64", "<f8", "d", 8, 'f'},
		{Complex64, "complex64", "<c8", "Zf", 8, 'c'},
		{Complex128, "complex128", "<c16", "Zd", 16, 'c'},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.dt
			if d.Name() != tc.name || d.String() != tc.name || d.Typestr() != tc.typestr || d.Format() != tc.format ||
				d.Itemsize() != tc.size || d.Kind() != tc.kind || !d.IsValid() {
				t.Fatalf("got %s %s %s %d %c", d.Name(), d.Typestr(), d.Format(), d.Itemsize(), d.Kind())
			}
			for _, s := range []string{d.Name(), d.Typestr()} {
				if got, err := ParseDType(s); err != nil || got != d {
					t.Errorf("ParseDType(%q) = %v, %v", s, got, err)
				}
			}
			if got, err := DTypeFromFormat(d.Format()); err != nil || got != d {
				t.Errorf("DTypeFromFormat(%q) = %v, %v", d.Format(), got, err)
			}
		})
	}
	var zero DType
	if zero.IsValid() || zero.Itemsize() != 0 || len(DTypes()) != 14 {
		t.Fatal("zero DType is valid or DTypes is wrong")
	}
}

func TestParseDType(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     DType
		err      error
	}{
		{"name float64", "float64", Float64, nil},
		{"name float16", "float16", Float16, nil},
		{"name bool", "bool", Bool, nil},
		{"alias double", "double", Float64, nil},
		{"alias float", "float", Float64, nil},
		{"alias int", "int", Int64, nil},
		{"code f8", "f8", Float64, nil},
		{"code i4", "i4", Int32, nil},
		{"code u1", "u1", Uint8, nil},
		{"code b1", "b1", Bool, nil},
		{"code c16", "c16", Complex128, nil},
		{"code c8", "c8", Complex64, nil},
		{"char ?", "?", Bool, nil},
		{"char d", "d", Float64, nil},
		{"char f", "f", Float32, nil},
		{"char e", "e", Float16, nil},
		{"char b is int8", "b", Int8, nil},
		{"char B", "B", Uint8, nil},
		{"typestr <f8", "<f8", Float64, nil},
		{"typestr |u1", "|u1", Uint8, nil},
		{"typestr =i4", "=i4", Int32, nil},
		{"typestr |b1", "|b1", Bool, nil},
		{"one byte big endian", ">u1", Uint8, nil},
		{"unknown name", "float96", DType{}, ErrType},
		{"unknown size", "f3", DType{}, ErrType},
		{"object", "O", DType{}, ErrType},
		{"empty", "", DType{}, ErrType},
		{"bare prefix", "<", DType{}, ErrType},
		{"leading zero", "f08", DType{}, ErrType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDType(tc.in)
			wantErr(t, err, tc.err)
			if got != tc.want {
				t.Fatalf("ParseDType(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
	for in, want := range map[string]string{"S8": "8s", "|S3": "3s", ">f8": ">d", "!i4": ">i", ">c16": ">Zd", "T{<i:a:}": "T{<i:a:}"} {
		d, err := ParseDType(in)
		if err != nil || d.Format() != want || d.IsBasic() {
			t.Errorf("ParseDType(%q) = %v (format %q), %v; want the format type %q", in, d, d.Format(), err, want)
		}
	}
}

func TestFormatDTypes(t *testing.T) {
	for _, tc := range []struct {
		format, name, typestr string
		kind                  byte
		size                  int
	}{
		{">d", ">f8", ">f8", 'f', 8},
		{">h", ">i2", ">i2", 'i', 2},
		{"!I", ">u4", ">u4", 'u', 4},
		{">Zd", ">c16", ">c16", 'c', 16},
		{">?", "bool", "|b1", 'b', 1}, // the layout of Bool: its name
		{"5s", "|S5", "|S5", 'S', 5},
		{"T{i:a:=d:b:}", "<T{i:a:d:b:}", "|V12", 'V', 12}, // compound items: the canonical format
		{"T{i:a:xxxxd:b:}", "<T{i:a:4xd:b:}", "|V16", 'V', 16},
		{"(2,3)d", "<(2,3)d", "|V48", 'V', 48},
		{"dd", "<T{dd}", "|V16", 'V', 16},
	} {
		t.Run(tc.format, func(t *testing.T) {
			d, err := DTypeFromFormat(tc.format)
			if err != nil {
				t.Fatal(err)
			}
			if d.Name() != tc.name || d.Typestr() != tc.typestr || d.Kind() != tc.kind || d.Itemsize() != tc.size ||
				d.Format() != tc.format || !d.IsValid() || d.IsBasic() || d.Item() == nil {
				t.Fatalf("%q: name %q typestr %q kind %c size %d format %q", tc.format, d.Name(), d.Typestr(), d.Kind(), d.Itemsize(), d.Format())
			}
			again, _ := DTypeFromFormat(tc.format)
			if again != d {
				t.Fatal("equal formats must give equal DTypes")
			}
		})
	}
	if Float64.Item().Size != 8 || !Float64.IsBasic() {
		t.Fatal("basic DTypes have descriptors too")
	}
	if _, err := DTypeFromFormat("T{}"); !errors.Is(err, ErrType) {
		t.Fatalf("a 0-byte item: %v", err)
	}
}

func TestDTypeFromFormat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     DType
		err      error
	}{
		{"empty is B", "", Uint8, nil},
		{"B", "B", Uint8, nil},
		{"native B", "@B", Uint8, nil},
		{"bool", "?", Bool, nil},
		{"b", "b", Int8, nil},
		{"h", "h", Int16, nil},
		{"<H", "<H", Uint16, nil},
		{"i", "i", Int32, nil},
		{"=I", "=I", Uint32, nil},
		{"l native", "l", Int64, nil},
		{"l @", "@l", Int64, nil},
		{"l standard =", "=l", Int32, nil},
		{"l standard <", "<l", Int32, nil},
		{"L native", "L", Uint64, nil},
		{"L standard", "<L", Uint32, nil},
		{"q", "q", Int64, nil},
		{"<q", "<q", Int64, nil},
		{"Q", "=Q", Uint64, nil},
		{"n native", "n", Int64, nil},
		{"N native", "@N", Uint64, nil},
		{"n standard", "<n", DType{}, ErrType},
		{"N standard", "=N", DType{}, ErrType},
		{"e", "e", Float16, nil},
		{"f", "<f", Float32, nil},
		{"d", "d", Float64, nil},
		{"Zf", "Zf", Complex64, nil},
		{"Zd", "<Zd", Complex128, nil},
		{"Python objects", "O", DType{}, ErrType},
		{"bare prefix", "<", DType{}, ErrType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DTypeFromFormat(tc.in)
			wantErr(t, err, tc.err)
			if tc.err != nil {
				if got != tc.want {
					t.Fatalf("DTypeFromFormat(%q) = %v, want %v", tc.in, got, tc.want)
				}
				return
			}
			if !got.SameLayout(tc.want) || got.Name() != tc.want.Name() {
				t.Fatalf("DTypeFromFormat(%q) = %v, want the layout of %v", tc.in, got, tc.want)
			}
			// The exporter's spelling is kept, byte for byte; a basic type's
			// own format gives the basic type.
			want := cmp.Or(tc.in, "B")
			if got.Format() != want || got.IsBasic() != (got.Format() == tc.want.Format() && got.Format() == cmp.Or(tc.in, "B")) {
				t.Fatalf("DTypeFromFormat(%q).Format() = %q (basic %v), want %q", tc.in, got.Format(), got.IsBasic(), want)
			}
			if err != nil && !errors.Is(err, ErrType) {
				t.Fatalf("error %v does not wrap ErrType", err)
			}
		})
	}
}

func TestNumPyExtensionDTypes(t *testing.T) {
	for _, tc := range []struct{ in, name, typestr, canonical string }{
		{"<U3", "<U3", "<U3", "<3w"},
		{">U2", ">U2", ">U2", ">2w"},
		{"3w", "<U3", "<U3", "<3w"},
		{"|V4", "<T{4x}", "|V4", "<T{4x}"},
		{"g", "<f16", "<f16", "^g"},
		{"longdouble", "<f16", "<f16", "^g"},
		{">f16", ">f16", ">f16", ">g"},
		{"Zg", "<c32", "<c32", "^Zg"},
		{">c32", ">c32", ">c32", ">Zg"},
		{"^d", "float64", "<f8", "<d"},
	} {
		d, err := ParseDTypeOrFormat(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if d.Name() != tc.name || d.Typestr() != tc.typestr || d.Canonical() != tc.canonical {
			t.Errorf("%q: name %q typestr %q canonical %q, want %q %q %q", tc.in, d.Name(), d.Typestr(),
				d.Canonical(), tc.name, tc.typestr, tc.canonical)
		}
		if back, err := ParseDType(d.Name()); err != nil || !back.SameLayout(d) {
			t.Errorf("%q: name %q reads back as %v, %v", tc.in, d.Name(), back, err)
		}
	}
}

func TestDTypeOfExport(t *testing.T) {
	// NumPy exports one aligned element of a packed (9-byte) record as "T{d:a:b:b:}".
	d, err := DTypeOfExport("T{d:a:b:b:}", 9)
	if err != nil || d.Itemsize() != 9 || d.Canonical() != "<T{d:a:b:b:}" {
		t.Fatalf("DTypeOfExport = %v (%d bytes, %q), %v", d, d.Itemsize(), d.Canonical(), err)
	}
	if d, err := DTypeOfExport("q", 8); err != nil || d.Format() != "q" {
		t.Fatalf("q: %v, %v", d, err)
	}
	// ctypes writes C structures without their padding: where C's alignment
	// moves no field, the items are the fields and padding to the item size.
	for _, tc := range []struct {
		format string
		size   int
		canon  string
		spell  string // the corrected spelling, which NumPy reads alike
	}{
		{"T{<d:a:<c:b:}", 16, "<T{d:a:1s:b:7x}", "T{<d:a:<c:b:7x}"},
		{"T{>q:a:>h:b:>b:c:}", 16, ">T{q:a:h:b:b:c:5x}", "T{>q:a:>h:b:>b:c:5x}"},
		{"T{<d:a:T{<d:x:<c:y:}:s:}", 24, "<T{d:a:T{d:x:1s:y:}:s:7x}", "T{<d:a:T{<d:x:<c:y:}:s:7x}"},
		{"T{<i:a:<i:b:<h:c:}", 12, "<T{i:a:i:b:h:c:2x}", "T{<i:a:<i:b:<h:c:2x}"},
		{"<d<c", 16, "<T{d1s7x}", "<d<c7x"},
		// NumPy leaves out padding at the end of a record that is not its alignment's
		{"T{=i:a:}", 5, "<T{i:a:1x}", "T{=i:a:1x}"},
		{"T{B:b:xxx=i:a:}", 9, "<T{B:b:3xi:a:1x}", "T{B:b:xxx=i:a:1x}"},
		{"T{d:a:}", 16, "<T{d:a:8x}", "T{d:a:8x}"},
		{"T{=d:a:B:b:}", 12, "<T{d:a:B:b:3x}", "T{=d:a:B:b:3x}"},
		{"T{d:a:b:b:}", 17, "<T{d:a:b:b:8x}", "<d:a:b:b:8x"},
		{"ix", 8, "<T{i4x}", "ix3x"},                    // as NumPy reads "ix"
		{"T{xxh:x:}", 8, "<T{2xh:x:4x}", "T{xxh:x:4x}"}, // NumPy's field at an offset
	} {
		d, err := DTypeOfExport(tc.format, tc.size)
		if err != nil || d.Itemsize() != tc.size || d.Canonical() != tc.canon || d.Format() != tc.spell ||
			!numpyReadsAs(d.Format(), d.Item()) {
			t.Errorf("DTypeOfExport(%q, %d) = %v (%d bytes, %q, spelled %q), %v; want %q spelled %q", tc.format, tc.size,
				d, d.Itemsize(), d.Canonical(), d.Format(), err, tc.canon, tc.spell)
		}
	}
	for _, tc := range []struct {
		format string
		size   int
		msg    string
	}{
		{"T{d:a:b:b:}", 8, "item size"}, {"d", 4, "item size"}, {"ii", 6, "item size"}, {"T{}", 0, "0 bytes"},
		// one number, string or sub-array: its size is its code's
		{"d", 16, "item size"}, {"B", 8, "item size"}, {"3s", 4, "item size"}, {"(2)i", 12, "item size"},
		{"(2)T{i:a:}", 12, "item size"},
		// C's alignment moves b: the format does not say where it is
		{"T{<i:a:<d:b:}", 16, "at other offsets"}, {"<i<d", 16, "at other offsets"},
	} {
		_, err := DTypeOfExport(tc.format, tc.size)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("DTypeOfExport(%q, %d): %v, want an error saying %q", tc.format, tc.size, err, tc.msg)
		}
	}
}
