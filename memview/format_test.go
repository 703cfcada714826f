package memview

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// goldenFormats is testdata/formats.json, written by testdata/gen_formats.py
// from CPython's struct module and NumPy's PEP 3118 reader.
type goldenFormats struct {
	Python, NumPy string
	Struct        []struct {
		Format   string
		Size     int
		Error    bool
		Fields   [][3]int // offset, element size, repeat
		Values   []json.RawMessage
		Bytes    string
		Unpacked []json.RawMessage
		NumPy    *numpyGolden
	}
	Records []struct {
		Name, Format   string
		Size           int
		Leaves         [][]any // offset, element size, count, NumPy byte order ('<', '>', '|')
		ExportItemsize int     `json:"export_itemsize"`
		Values         []json.RawMessage
		Bytes          string
	}
	// NumPy's readings of top-level formats, in NumPy's grammar and just outside it.
	Top []struct {
		Format string
		NumPy  *numpyGolden
	}
}

// numpyGolden is how NumPy's reader reads a format as the whole item of a
// buffer; nil where it refuses the format.
type numpyGolden struct {
	Size   int
	Leaves [][]any // as in Records
	Fields int     // fields, nested records' counted once, zero-size ones too
}

func loadGolden(t testing.TB) *goldenFormats {
	t.Helper()
	raw, err := os.ReadFile("testdata/formats.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFormats
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// goldenValue rebuilds a tagged value of formats.json as the Go value that
// Unpack returns.
func goldenValue(t testing.TB, raw json.RawMessage) any {
	t.Helper()
	if len(raw) > 0 && raw[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		out := make([]any, len(list))
		for i, r := range list {
			out[i] = goldenValue(t, r)
		}
		return out
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil || len(v) != 1 {
		t.Fatalf("bad golden value %s: %v", raw, err)
	}
	for tag, r := range v {
		var s string
		var err error
		var out any
		switch tag {
		case "b":
			var b bool
			err = json.Unmarshal(r, &b)
			out = b
		case "c":
			var c byte
			err = json.Unmarshal(r, &c)
			out = c
		case "z":
			var parts [2]string
			if err = json.Unmarshal(r, &parts); err == nil {
				re, err1 := strconv.ParseFloat(parts[0], 64)
				im, err2 := strconv.ParseFloat(parts[1], 64)
				out, err = complex(re, im), errors.Join(err1, err2)
			}
		default:
			if err = json.Unmarshal(r, &s); err != nil {
				break
			}
			switch tag {
			case "i":
				out, err = strconv.ParseInt(s, 10, 64)
			case "u":
				out, err = strconv.ParseUint(s, 10, 64)
			case "f":
				out, err = strconv.ParseFloat(s, 64)
			case "s":
				out, err = hex.DecodeString(s)
			default:
				err = fmt.Errorf("unknown tag %q", tag)
			}
		}
		if err != nil {
			t.Fatalf("bad golden value %s: %v", raw, err)
		}
		return out
	}
	panic("unreachable")
}

func goldenValues(t testing.TB, raws []json.RawMessage) []any {
	out := make([]any, len(raws))
	for i, r := range raws {
		out[i] = goldenValue(t, r)
	}
	return out
}

// sameValue compares unpacked values exactly: floats bit for bit except that
// any NaN equals any NaN.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y))
	case complex128:
		y, ok := b.(complex128)
		return ok && sameValue(real(x), real(y)) && sameValue(imag(x), imag(y))
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && sameList(x, y)
	}
	return a == b
}

func sameList(x, y []any) bool {
	for i := range x {
		if !sameValue(x[i], y[i]) {
			return false
		}
	}
	return true
}

// mustParse parses s or fails t.
func mustParse(t testing.TB, s string) *ItemDesc {
	t.Helper()
	d, err := ParseFormat(s)
	if err != nil {
		t.Fatalf("ParseFormat(%q): %v", s, err)
	}
	return d
}

// checkRoundTrip checks that d.Format() parses to the same size and
// components.
func checkRoundTrip(t testing.TB, s string, d *ItemDesc) {
	t.Helper()
	canon := d.Format()
	d2, err := ParseFormat(canon)
	if err != nil {
		t.Fatalf("ParseFormat(%q.Format() = %q): %v", s, canon, err)
	}
	if d2.Size != d.Size || d2.Align > d.Align || d.Align%d2.Align != 0 {
		t.Fatalf("%q: Format() %q has size %d align %d, want %d align dividing %d", s, canon, d2.Size, d2.Align, d.Size, d.Align)
	}
	c1, c2 := d.Components(), d2.Components()
	if len(c1) != len(c2) {
		t.Fatalf("%q: Format() %q has %d components, want %d", s, canon, len(c2), len(c1))
	}
	for i := range c1 {
		a, b := c1[i], c2[i]
		if a.Offset != b.Offset || a.Size != b.Size || a.Repeat != b.Repeat || a.Code != b.Code || a.Name != b.Name ||
			a.Order != b.Order || !slices.Equal(a.Shape, b.Shape) {
			t.Fatalf("%q: Format() %q component %d is %+v, want %+v", s, canon, i, b, a)
		}
	}
}

// standardP matches a format of struct's grammar with 'P' under a standard prefix.
var standardP = regexp.MustCompile(`^[=<>!][^@]*P`)

func TestParseFormatStructGolden(t *testing.T) {
	g := loadGolden(t)
	if len(g.Struct) < 1000 {
		t.Fatalf("only %d struct cases", len(g.Struct))
	}
	for _, tc := range g.Struct {
		t.Run(strconv.Quote(tc.Format), func(t *testing.T) {
			d, err := ParseFormat(tc.Format)
			if tc.Error && standardP.MatchString(tc.Format) {
				// 'P' under a standard prefix, which struct refuses, has the
				// pointer size ("<P", as ctypes writes c_void_p): 'Q' to struct.
				q, qerr := ParseFormat(strings.ReplaceAll(tc.Format, "P", "Q"))
				if (err == nil) != (qerr == nil) || err == nil && q.Size != d.Size {
					t.Fatalf("%q: %v, %v; want the layout of 'Q' for 'P' (%v)", tc.Format, d, err, qerr)
				}
				return
			}
			if tc.Error {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("struct refuses %q; got %v, %v", tc.Format, d, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Size != tc.Size {
				t.Fatalf("Size %d, struct.calcsize %d", d.Size, tc.Size)
			}
			if len(d.Fields) != len(tc.Fields) {
				t.Fatalf("%d fields %+v, want %v", len(d.Fields), d.Fields, tc.Fields)
			}
			for i, f := range d.Fields {
				if got := [3]int{f.Offset, f.Size, f.Repeat}; got != tc.Fields[i] || f.Shape != nil || f.Name != "" {
					t.Errorf("field %d: offset, size, repeat %v, want %v (%+v)", i, got, tc.Fields[i], f)
				}
			}
			checkRoundTrip(t, tc.Format, d)
			want, _ := hex.DecodeString(tc.Bytes)
			got := make([]byte, d.Size)
			if err := d.Pack(got, goldenValues(t, tc.Values)); err != nil {
				t.Fatalf("Pack: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Pack gives %x, struct.pack %x", got, want)
			}
			vals, err := d.Unpack(want)
			if err != nil {
				t.Fatalf("Unpack: %v", err)
			}
			if wantVals := goldenValues(t, tc.Unpacked); !sameValue(vals, wantVals) {
				t.Fatalf("Unpack gives %v, struct.unpack %v", vals, wantVals)
			}
		})
	}
}

func TestParseFormatRecordsGolden(t *testing.T) {
	g := loadGolden(t)
	for _, tc := range g.Records {
		t.Run(tc.Name+" "+tc.Format, func(t *testing.T) {
			d := mustParse(t, tc.Format)
			if d.Size != tc.Size {
				t.Fatalf("Size %d, NumPy's reader %d", d.Size, tc.Size)
			}
			// NumPy's reader keeps unnamed zero-count fields ("0i") that
			// memview drops; compare the leaves that hold bytes.
			var comps []Field
			for _, c := range d.Components() {
				if c.Size*c.Repeat > 0 {
					comps = append(comps, c)
				}
			}
			if len(comps) != len(tc.Leaves) {
				t.Fatalf("%d components %+v, NumPy leaves %v", len(comps), comps, tc.Leaves)
			}
			for i, c := range comps {
				l := tc.Leaves[i]
				order := "<"
				if c.Order == Big {
					order = ">"
				}
				if c.Offset != int(l[0].(float64)) || c.Size != int(l[1].(float64)) || c.Repeat != int(l[2].(float64)) ||
					l[3] != "|" && l[3] != order {
					t.Errorf("component %d %+v, NumPy leaf %v", i, c, l)
				}
			}
			checkRoundTrip(t, tc.Format, d)
			if tc.Bytes == "" {
				return
			}
			want, _ := hex.DecodeString(tc.Bytes)
			got := make([]byte, d.Size)
			if err := d.Pack(got, goldenValues(t, tc.Values)); err != nil {
				t.Fatalf("Pack: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Pack gives %x, NumPy %x", got, want)
			}
			vals, err := d.Unpack(want)
			if err != nil {
				t.Fatalf("Unpack: %v", err)
			}
			if wantVals := goldenValues(t, tc.Values); !sameValue(vals, wantVals) {
				t.Fatalf("Unpack gives %v, NumPy %v", vals, wantVals)
			}
		})
	}
}

// TestParseFormatNumPyExportQuirk records the one NumPy export that NumPy's
// own reader disagrees with: a single element of a packed dtype is
// "aligned", so NumPy writes '@' and the reader pads the record.
func TestParseFormatNumPyExportQuirk(t *testing.T) {
	g := loadGolden(t)
	n := 0
	for _, tc := range g.Records {
		if tc.ExportItemsize != 0 && tc.ExportItemsize != tc.Size {
			n++
			if d := mustParse(t, tc.Format); d.Size != tc.Size {
				t.Errorf("%s %q: Size %d, NumPy's reader %d", tc.Name, tc.Format, d.Size, tc.Size)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d exports disagree with NumPy's reader, want 1 (regenerated with another NumPy?)", n)
	}
}

// f is a shorthand for the Field of a test table.
func f(name, code string, order ByteOrder, native bool, offset, size, repeat int, shape ...int) Field {
	if len(shape) == 0 {
		shape = nil
	}
	return Field{Name: name, Code: code, Order: order, NativeSize: native, Offset: offset, Size: size, Repeat: repeat, Shape: shape}
}

func TestParseFormatLayout(t *testing.T) {
	for _, tc := range []struct {
		name, in    string
		size, align int
		fields      []Field
		canon       string
	}{
		{"aligned int after byte", "bi", 8, 4, []Field{f("", "b", Native, true, 0, 1, 1), f("", "i", Native, true, 4, 4, 1)}, "b3xi"},
		{"no trailing padding", "ib", 5, 4, []Field{f("", "i", Native, true, 0, 4, 1), f("", "b", Native, true, 4, 1, 1)}, "ib"},
		{"native q", "@bq", 16, 8, []Field{f("", "b", Native, true, 0, 1, 1), f("", "q", Native, true, 8, 8, 1)}, "b7xq"},
		{"standard q packed", "<bq", 9, 1, []Field{f("", "b", Little, false, 0, 1, 1), f("", "q", Little, false, 1, 8, 1)}, "<bq"},
		{"zero count aligns the end", "llh0l", 24, 8, []Field{f("", "l", Native, true, 0, 8, 1), f("", "l", Native, true, 8, 8, 1), f("", "h", Native, true, 16, 2, 1)}, "llh6x"},
		{"string", "3s", 3, 1, []Field{f("", "s", Native, true, 0, 3, 1)}, "3s"},
		{"empty string is a field", "0s", 0, 1, []Field{f("", "s", Native, true, 0, 0, 1)}, "0s"},
		{"pascal string", "5p", 5, 1, []Field{f("", "p", Native, true, 0, 5, 1)}, "5p"},
		{"repeat", "3i", 12, 4, []Field{f("", "i", Native, true, 0, 4, 3)}, "3i"},
		{"sub-array", "(2,3)d", 48, 8, []Field{f("", "d", Native, true, 0, 8, 6, 2, 3)}, "(2,3)d"},
		{"count after shape adds a dimension", "(2)3i", 24, 4, []Field{f("", "i", Native, true, 0, 4, 6, 2, 3)}, "(2,3)i"},
		{"shape of strings", "(2)3s", 6, 1, []Field{f("", "s", Native, true, 0, 3, 2, 2)}, "(2)3s"},
		{"prefix after shape", "(2)>h", 4, 1, []Field{f("", "h", Big, false, 0, 2, 2, 2)}, ">(2)h"},
		{"shape after shape", "(2)(3)<h", 12, 1, []Field{f("", "h", Little, false, 0, 2, 6, 2, 3)}, "<(2,3)h"},
		{"padding", "b3xh", 6, 2, []Field{f("", "b", Native, true, 0, 1, 1), f("", "h", Native, true, 4, 2, 1)}, "b3xh"},
		{"complex", "bZfZdZe", 36, 8, []Field{f("", "b", Native, true, 0, 1, 1), f("", "Zf", Native, true, 4, 8, 1), f("", "Zd", Native, true, 16, 16, 1), f("", "Ze", Native, true, 32, 4, 1)}, "b3xZf4xZdZe"},
		{"standard complex", ">bZe", 5, 1, []Field{f("", "b", Big, false, 0, 1, 1), f("", "Ze", Big, false, 1, 4, 1)}, ">bZe"},
		{"mid-string switch", "<i>h=q!b@d", 24, 8, []Field{f("", "i", Little, false, 0, 4, 1), f("", "h", Big, false, 4, 2, 1), f("", "q", Native, false, 6, 8, 1), f("", "b", Big, false, 14, 1, 1), f("", "d", Native, true, 16, 8, 1)}, "<i>h=q>b1x@d"},
		{"standard l", "=l", 4, 1, []Field{f("", "l", Native, false, 0, 4, 1)}, "=l"},
		{"whitespace", " b \t i\n", 8, 4, []Field{f("", "b", Native, true, 0, 1, 1), f("", "i", Native, true, 4, 4, 1)}, "b3xi"},
		{"named top level", "i:a:b:b:", 5, 4, []Field{f("a", "i", Native, true, 0, 4, 1), f("b", "b", Native, true, 4, 1, 1)}, "i:a:b:b:"},
		{"named zero count is a field", "b0i:z:", 4, 4, []Field{f("", "b", Native, true, 0, 1, 1), f("z", "i", Native, true, 4, 4, 0, 0)}, "b3x(0)i:z:"},
		{"named padding is a field", "b3x:v:", 4, 1, []Field{f("", "b", Native, true, 0, 1, 1), f("v", "x", Native, true, 1, 3, 1)}, "b3x:v:"},
		{"empty", "", 0, 1, nil, ""},
		{"lone prefix", "<", 0, 1, nil, ""},
		{"record little", "T{<i:a:<d:b:}", 12, 1, []Field{{Code: "T", Order: Little, Size: 12, Repeat: 1}}, "T{<i:a:d:b:}"},
		{"record trailing padding", "T{i:a:b:b:}", 8, 4, []Field{{Code: "T", Order: Native, NativeSize: true, Size: 8, Repeat: 1}}, "T{i:a:b:b:3x}"},
		{"record ends standard", "T{i:a:<b:b:}", 5, 1, []Field{{Code: "T", Order: Little, Size: 5, Repeat: 1}}, "T{i:a:<b:b:}"},
		{"record then byte: struct rule at top", "T{i:a:b:b:}b", 9, 4, []Field{{Code: "T", Order: Native, NativeSize: true, Size: 8, Repeat: 1}, f("", "b", Native, true, 8, 1, 1)}, "T{i:a:b:b:3x}b"},
		{"nested record", "T{i:x:T{d:y:}:z:}", 16, 8, []Field{{Code: "T", Order: Native, NativeSize: true, Size: 16, Repeat: 1}}, "T{i:x:4xT{d:y:}:z:}"},
		{"prefix leaks out of a record", "T{b:a:T{<d:x:}:b:c:c:}", 10, 1, []Field{{Code: "T", Order: Little, Size: 10, Repeat: 1}}, "T{b:a:T{<d:x:}:b:c:c:}"},
		{"array of records", "2T{d:a:b:b:}", 32, 8, []Field{{Code: "T", Order: Native, NativeSize: true, Size: 16, Repeat: 2}}, "2T{d:a:b:b:7x}"},
		{"empty record", "T{}", 0, 1, []Field{{Code: "T", Order: Native, NativeSize: true, Repeat: 1}}, "T{}"},
		{"empty record after prefix", "<T{}i", 4, 1, []Field{{Code: "T", Order: Little, Repeat: 1}, f("", "i", Little, false, 0, 4, 1)}, "<T{}i"},
		{"record of padding", "T{<3x}", 3, 1, []Field{{Code: "T", Order: Little, Size: 3, Repeat: 1}}, "<T{3x}"},
		{"record ends with prefix and padding", "T{i:a:<0x}b", 5, 1, []Field{{Code: "T", Order: Little, Size: 4, Repeat: 1}, f("", "b", Little, false, 4, 1, 1)}, "T{i:a:<0x}b"},
		{"numpy aligned export", "T{b:a:xxx>i:b:@l:c:}", 16, 8, []Field{{Code: "T", Order: Native, NativeSize: true, Size: 16, Repeat: 1}}, "T{b:a:3x>i:b:@l:c:}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.in)
			if d.Size != tc.size || d.Align != tc.align {
				t.Fatalf("size %d align %d, want %d %d", d.Size, d.Align, tc.size, tc.align)
			}
			if len(d.Fields) != len(tc.fields) {
				t.Fatalf("fields %+v, want %+v", d.Fields, tc.fields)
			}
			for i, got := range d.Fields {
				want := tc.fields[i]
				if got.Code == "T" {
					if got.Record == nil {
						t.Fatalf("record field %d has no Record", i)
					}
					want.Record, want.Offset = got.Record, got.Offset
				}
				if !fieldsEqual(got, want) {
					t.Errorf("field %d: %+v, want %+v", i, got, want)
				}
			}
			if got := d.Format(); got != tc.canon {
				t.Errorf("Format() = %q, want %q", got, tc.canon)
			}
			checkRoundTrip(t, tc.in, d)
		})
	}
}

func fieldsEqual(a, b Field) bool {
	return a.Name == b.Name && a.Code == b.Code && a.Order == b.Order && a.NativeSize == b.NativeSize &&
		a.Offset == b.Offset && a.Size == b.Size && a.Repeat == b.Repeat && slices.Equal(a.Shape, b.Shape) && a.Record == b.Record
}

func TestParseFormatInvalid(t *testing.T) {
	deep := strings.Repeat("T{", maxFormatDepth+1) + strings.Repeat("}", maxFormatDepth+1)
	dims := "(" + strings.Repeat("1,", maxFormatDims) + "1)i"
	for _, tc := range []struct{ name, in, msg string }{
		{"unterminated record", "T{i", `memview: format "T{i" at byte 3: unterminated record: invalid argument`},
		{"unterminated empty record", "T{", "unterminated record"},
		{"unterminated after name", "T{i:a:", "unterminated record"},
		{"stray brace", "i}", "'}' outside a record"},
		{"T without brace", "Ti", "'T' not followed by '{'"},
		{"T at end", "iT", "'T' not followed by '{'"},
		{"unknown code", "y", `unknown format code "y"`},
		{"object code", "O", `format code "O" refused: Python object references`},
		{"pointer-to code", "&i", `format code "&" refused: pointers`},
		{"unknown complex", "Zi", `unknown format code "Zi"`},
		{"bare Z", "Z", `unknown format code "Z"`},
		{"nul byte", "i\x00", "unknown format code"},
		{"non-ASCII", "i\xff", "unknown format code"},
		{"space after count", "3 i", "at byte 1: unknown format code"},
		{"count alone", "3", "count or shape without a format code"},
		{"count at end", "i3", "count or shape without a format code"},
		{"shape alone", "(2)", "count or shape without a format code"},
		{"unterminated shape", "(2,3", "unterminated shape"},
		{"trailing comma in shape", "(2,)d", "bad character ')' in shape"},
		{"empty shape", "()d", "bad character ')' in shape"},
		{"letter in shape", "(a)d", "bad character 'a' in shape"},
		{"negative dimension", "(-1)d", "bad character '-' in shape"},
		{"space between dimensions", "(2 3)d", "bad character '3' in shape"},
		{"n with standard size", "<n", `format code "n" needs native size`},
		{"N with standard size", "=N", `format code "N" needs native size`},
		{"unterminated name", "i:a", "unterminated field name"},
		{"empty name", "i::", "empty field name"},
		{"duplicate name", "T{i:a:d:a:}", `at byte 8: duplicate field name "a"`},
		{"duplicate top-level name", "i:a:d:a:", `duplicate field name "a"`},
		{"two prefixes", "<<i", "two byte-order prefixes in a row"},
		{"two prefixes with space", "< @i", "two byte-order prefixes in a row"},
		{"prefix before brace", "T{i<}", "before '}' names no item"},
		{"count overflow", "99999999999999999999x", "count too large"},
		{"size overflow", "9223372036854775807xb", "item size overflows"},
		{"repeat size overflow", "4611686018427387904d", "item size overflows"},
		{"string size overflow", "b9223372036854775807s", "item size overflows"},
		{"dimension overflow", "(99999999999999999999)i", "dimension too large"},
		{"sub-array overflow", "(9223372036854775807,3)d", "sub-array too large"},
		{"records nested too deep", deep, "records nested more than 64 deep"},
		{"too many dimensions", dims, "more than 64 dimensions"},
		{"count adds a dimension too many", "(" + strings.Repeat("1,", maxFormatDims-1) + "1)2i", "more than 64 dimensions"},
		{"too many components", "(70000)T{b:a:}", "more than 65536 components"},
		{"too many components nested", "(300)T{(300)T{b:a:}:r:}", "more than 65536 components"},
		{"billion empty records", "(1000000000)T{}", "more than 65536 values of zero size"},
		{"billion empty rows", "(1000000000,0)d", "more than 65536 values of zero size"},
		{"many empty strings", "(70000)0s", "more than 65536 values of zero size"},
		{"repeat of empty records", "70000T{}", "more than 65536 values of zero size"},
		{"empty strings in records with bytes", "(1000)T{(1000)0s:x:b:y:}", "more than 65536 values of zero size"},
		{"empty strings in a record", "T{(70000)0s:x:}", "more than 65536 values of zero size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseFormat(tc.in)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseFormat(%q) = %+v, %v; want an error wrapping ErrInvalid", tc.in, d, err)
			}
			if !strings.HasPrefix(err.Error(), "memview: format ") || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q does not say %q", err, tc.msg)
			}
		})
	}
	// The limits themselves are allowed.
	for _, s := range []string{
		strings.Repeat("T{", maxFormatDepth) + strings.Repeat("}", maxFormatDepth),
		"(" + strings.Repeat("1,", maxFormatDims-1) + "1)i",
		"(65536)T{b:a:}",
		"(65535)0s",
		"(1000000000)T{x}",
		"(1000,1000)d",
		"9223372036854775807x",
	} {
		if _, err := ParseFormat(s); err != nil {
			t.Errorf("ParseFormat(%.40q...): %v", s, err)
		}
	}
}

func TestComponents(t *testing.T) {
	d := mustParse(t, "T{b:a:(2)T{h:x:T{d:y:}:z:}:r:>i:c:}:top:Zf")
	type comp struct {
		name   string
		code   string
		offset int
		order  ByteOrder
	}
	var got []comp
	for _, c := range d.Components() {
		if c.Record != nil {
			t.Fatalf("component %+v is a record", c)
		}
		got = append(got, comp{c.Name, c.Code, c.Offset, c.Order})
	}
	want := []comp{
		{"top.a", "b", 0, Native},
		{"top.r[0].x", "h", 8, Native},
		{"top.r[0].z.y", "d", 16, Native},
		{"top.r[1].x", "h", 24, Native},
		{"top.r[1].z.y", "d", 32, Native},
		{"top.c", "i", 40, Big},
		{"", "Zf", 44, Big},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Components() = %+v\nwant %+v", got, want)
	}
	if d.Size != 52 {
		t.Fatalf("Size %d, want 52", d.Size)
	}
	c := mustParse(t, "(2,2)T{b:v:}:m:").Components()
	if len(c) != 4 || c[3].Name != "m[1,1].v" || c[3].Offset != 3 {
		t.Fatalf("2-D array of records: %+v", c)
	}
	sub := mustParse(t, "(2,3)d")
	comps := sub.Components()
	comps[0].Shape[0] = 99
	if sub.Fields[0].Shape[0] != 2 {
		t.Fatal("Components shares Shape with the ItemDesc")
	}
	if got := mustParse(t, "(1000000000)T{x}").Components(); len(got) != 0 {
		t.Fatalf("records of padding give components %+v", got)
	}
	if got := mustParse(t, "T{}T{x}").Components(); len(got) != 0 {
		t.Fatalf("empty records give components %+v", got)
	}
}

func TestIsSimple(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"d", true}, {"<d", true}, {">i", true}, {"Zf", true}, {"?", true}, {"e", true}, {"P", true}, {"=l", true},
		{"3d", false}, {"(1)d", false}, {"d:x:", false}, {"dx", false}, {"xd", false}, {"T{d}", false},
		{"c", false}, {"3s", false}, {"s", false}, {"p", false}, {"dd", false}, {"", false}, {"x", false}, {"1d", true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := mustParse(t, tc.in).IsSimple(); got != tc.want {
				t.Fatalf("IsSimple(%q) = %v", tc.in, got)
			}
		})
	}
}

func TestPackByteOrder(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		val          any
		hex          string
	}{
		{"big int", ">i", int64(1), "00000001"},
		{"network short", "!h", int64(-2), "fffe"},
		{"little int", "<i", int64(1), "01000000"},
		{"native int", "=i", int64(1), "01000000"}, // this package assumes a little-endian machine
		{"big unsigned long standard", ">L", uint64(0xdeadbeef), "deadbeef"},
		{"big q", ">q", int64(-1 << 63), "8000000000000000"},
		{"big half", ">e", 1.5, "3e00"},
		{"little half", "<e", 1.5, "003e"},
		{"big float", ">f", 1.0, "3f800000"},
		{"big double", ">d", -2.0, "c000000000000000"},
		{"big complex floats", ">Zf", complex(1, -2), "3f800000c0000000"},
		{"little complex halves", "<Ze", complex(1, 2), "003c0040"},
		{"big complex doubles", ">Zd", complex(0, 1), "00000000000000003ff0000000000000"},
		{"big bool", ">?", true, "01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.format)
			b := make([]byte, d.Size)
			if err := d.Pack(b, []any{tc.val}); err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(b); got != tc.hex {
				t.Fatalf("Pack(%v) = %s, want %s", tc.val, got, tc.hex)
			}
			vals, err := d.Unpack(b)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.val
			if x, ok := want.(float64); ok && strings.Contains(tc.format, "Z") {
				want = complex(x, 0)
			}
			if !sameValue(vals[0], want) {
				t.Fatalf("Unpack = %#v, want %#v", vals[0], want)
			}
		})
	}
}

func TestPackUnpackRoundTrip(t *testing.T) {
	const format = ">ih(2)3sT{d:a:<e:b:(2)?:c:}:r:2Zf@c5p0s3x:v:Pn"
	d := mustParse(t, format)
	vals := []any{
		int64(-2), int64(7),
		[]any{[]byte("ab\x00"), []byte("cde")},
		[]any{1.5, 2.0, []any{true, false}},
		[]any{complex(1, 2), complex(3, 0)},
		byte('z'), []byte("four"), []byte{}, []byte{1, 2, 3}, uint64(1 << 60), int64(-5),
	}
	b := make([]byte, d.Size)
	if err := d.Pack(b, vals); err != nil {
		t.Fatal(err)
	}
	got, err := d.Unpack(b)
	if err != nil {
		t.Fatal(err)
	}
	if !sameValue(got, vals) {
		t.Fatalf("Unpack(Pack(v)) = %v\nwant %v", got, vals)
	}
	// Unpack copies: changing the bytes does not change the values.
	clear(b)
	if s := got[2].([]any)[1].([]byte); string(s) != "cde" {
		t.Fatalf("Unpack aliases its input: %q", s)
	}
	// A longer buffer is fine; Unpack reads the first item.
	long := make([]byte, d.Size+10)
	if err := d.Pack(long, vals); err != nil {
		t.Fatal(err)
	}
	if got, err := d.Unpack(long); err != nil || !sameValue(got, vals) {
		t.Fatalf("Unpack(longer) = %v, %v", got, err)
	}
}

func TestPackConversions(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		val          any
		hex          string
	}{
		{"int from uint8", "<h", uint8(200), "c800"},
		{"int from int", "<q", -3, "fdffffffffffffff"},
		{"unsigned from int", "<I", 7, "07000000"},
		{"float from int", "<d", 2, "0000000000000040"},
		{"float from float32", "<f", float32(0.5), "0000003f"},
		{"complex from float", "<Zf", 1.0, "0000803f00000000"},
		{"complex from complex64", "<Zf", complex64(complex(0, 1)), "000000000000803f"},
		{"char from string", "c", "a", "61"},
		{"char from bytes", "c", []byte("b"), "62"},
		{"string from string", "3s", "hi", "686900"},
		{"string truncated", "2s", "abc", "6162"},
		{"pascal truncated", "3p", "abcdef", "026162"},
		{"pascal padded", "4p", "a", "01610000"},
		{"pascal length byte capped", "300p", strings.Repeat("a", 300), "ff" + strings.Repeat("61", 299)},
		{"empty pascal", "0p", "abc", ""},
		{"pointer negative", "P", -1, "ffffffffffffffff"},
		{"native float rounds to inf", "f", 1e39, "0000807f"},
		{"half rounds down to max", "<e", 65519.0, "ff7b"},
		{"half infinity", "<e", math.Inf(-1), "00fc"},
		{"half NaN", "<e", math.NaN(), "007e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.format)
			b := make([]byte, d.Size)
			if err := d.Pack(b, []any{tc.val}); err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(b); got != tc.hex {
				t.Fatalf("Pack(%#v) = %s, want %s", tc.val, got, tc.hex)
			}
		})
	}
}

func TestPackErrors(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		vals         []any
		err          error
	}{
		{"too few values", "ii", []any{1}, ErrInvalid},
		{"too many values", "i", []any{1, 2}, ErrInvalid},
		{"string for int", "i", []any{"1"}, ErrType},
		{"bool for int", "i", []any{true}, ErrType},
		{"float for int", "i", []any{1.0}, ErrType},
		{"int for bool", "?", []any{1}, ErrType},
		{"int for char", "c", []any{int64(97)}, ErrType},
		{"long char", "c", []any{"ab"}, ErrInvalid},
		{"empty char", "c", []any{""}, ErrInvalid},
		{"int for string", "3s", []any{3}, ErrType},
		{"byte too big", "b", []any{128}, ErrInvalid},
		{"byte too small", "b", []any{-129}, ErrInvalid},
		{"unsigned byte negative", "B", []any{-1}, ErrInvalid},
		{"short too big", "<h", []any{70000}, ErrInvalid},
		{"standard l is 4 bytes", "<l", []any{int64(1) << 31}, ErrInvalid},
		{"standard L is 4 bytes", "<L", []any{uint64(1) << 32}, ErrInvalid},
		{"Q negative", "Q", []any{-1}, ErrInvalid},
		{"N negative", "N", []any{-1}, ErrInvalid},
		{"q too big", "q", []any{uint64(1) << 63}, ErrInvalid},
		{"half too large", "e", []any{65520.0}, ErrInvalid},
		{"standard float too large", "<f", []any{3.5e38}, ErrInvalid},
		{"standard complex part too large", "<Zf", []any{complex(0, 1e39)}, ErrInvalid},
		{"complex half too large", "Ze", []any{complex(1e5, 0)}, ErrInvalid},
		{"string for float", "d", []any{"1"}, ErrType},
		{"complex for float", "d", []any{complex(1, 0)}, ErrType},
		{"scalar for repeat", "3i", []any{1}, ErrType},
		{"short repeat", "3i", []any{[]any{1, 2}}, ErrInvalid},
		{"flat list for sub-array", "(2,2)i", []any{[]any{1, 2, 3, 4}}, ErrInvalid},
		{"typed slice for repeat", "2i", []any{[]int{1, 2}}, ErrType},
		{"scalar for record", "T{i:a:}", []any{1}, ErrType},
		{"record with too few values", "T{i:a:i:b:}", []any{[]any{1}}, ErrInvalid},
		{"bad value deep in a record", "T{i:a:(2)T{h:x:}:r:}", []any{[]any{1, []any{[]any{1}, []any{"no"}}}}, ErrType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.format)
			b := bytes.Repeat([]byte{0xaa}, d.Size)
			err := d.Pack(b, tc.vals)
			wantErr(t, err, tc.err)
			if err == nil {
				t.Fatal("Pack succeeded")
			}
			if !strings.HasPrefix(err.Error(), "memview: pack") {
				t.Errorf("error %q has no context", err)
			}
			if !bytes.Equal(b, bytes.Repeat([]byte{0xaa}, d.Size)) {
				t.Fatalf("Pack wrote %x before failing", b)
			}
		})
	}
	d := mustParse(t, "i")
	wantErr(t, d.Pack(make([]byte, 3), []any{1}), ErrInvalid)
	if _, err := d.Unpack(make([]byte, 3)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Unpack of 3 bytes: %v", err)
	}
}

// TestUnpackHandMade checks that a hand-made ItemDesc with bad fields gives
// errors, not panics.
func TestUnpackHandMade(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    ItemDesc
	}{
		{"offset past end", ItemDesc{Size: 4, Fields: []Field{{Code: "i", Offset: 2, Size: 4, Repeat: 1}}}},
		{"negative offset", ItemDesc{Size: 4, Fields: []Field{{Code: "i", Offset: -1, Size: 4, Repeat: 1}}}},
		{"repeat overflow", ItemDesc{Size: 4, Fields: []Field{{Code: "i", Size: 4, Repeat: math.MaxInt}}}},
		{"unknown code", ItemDesc{Size: 4, Fields: []Field{{Code: "u", Size: 4, Repeat: 1}}}},
		{"long double of 3 bytes", ItemDesc{Size: 4, Fields: []Field{{Code: "g", Size: 3, Repeat: 1}}}},
		{"empty code", ItemDesc{Size: 4, Fields: []Field{{Size: 4, Repeat: 1}}}},
		{"bad size for code", ItemDesc{Size: 4, Fields: []Field{{Code: "i", Size: 3, Repeat: 1}}}},
		{"record without Record", ItemDesc{Size: 4, Fields: []Field{{Code: "T", Size: 4, Repeat: 1}}}},
		{"negative item size", ItemDesc{Size: -1}},
		{"shape does not match repeat", ItemDesc{Size: 16, Fields: []Field{{Code: "i", Size: 4, Repeat: 1, Shape: []int{2, 2}}}}},
		{"negative dimension", ItemDesc{Size: 16, Fields: []Field{{Code: "i", Size: 4, Repeat: 2, Shape: []int{-2, -1}}}}},
		{"empty shape", ItemDesc{Size: 16, Fields: []Field{{Code: "i", Size: 4, Repeat: 2, Shape: []int{}}}}},
		{"negative size", ItemDesc{Size: 4, Fields: []Field{{Code: "s", Size: -1, Repeat: 1}}}},
		{"record bigger than its field", ItemDesc{Size: 4, Fields: []Field{{Code: "T", Size: 4, Repeat: 1,
			Record: &ItemDesc{Size: 8, Fields: []Field{{Code: "d", Size: 8, Repeat: 1}}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.d.Unpack(make([]byte, 16)); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Unpack: %v", err)
			}
			vals := make([]any, len(tc.d.Fields))
			for i := range vals {
				vals[i] = int64(0)
			}
			if err := tc.d.Pack(make([]byte, 16), vals); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrType) {
				t.Fatalf("Pack: %v", err)
			}
		})
	}
}

func ExampleParseFormat() {
	// NumPy's export of np.dtype([("id", "i1"), ("pos", "<f8", (2,))], align=True).
	d, err := ParseFormat("T{b:id:xxxxxxx(2)d:pos:}")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Size, d.Format())
	for _, c := range d.Components() {
		fmt.Println(c.Name, c.Code, c.Offset, c.Size, c.Repeat)
	}
	item := make([]byte, d.Size)
	if err := d.Pack(item, []any{[]any{int8(7), []any{0.5, -1.0}}}); err != nil {
		panic(err)
	}
	vals, _ := d.Unpack(item)
	fmt.Println(vals)
	// Output:
	// 24 T{b:id:7x(2)d:pos:}
	// id b 0 1 1
	// pos d 8 8 2
	// [[7 [0.5 -1]]]
}

func TestFieldFormat(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"T{<i:a:>d:b:(2,3)B:c:}", "<i|>d|>(2,3)B"},
		{"T{b:a:xxxxxxxT{d:x:h:y:}:b:}", "b|T{d:x:h:y:6x}"},
		{"T{3s:a:=2i:b:}", "3s|=2i"},
	} {
		d, err := ParseFormat(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range d.Fields[0].Record.Fields {
			got = append(got, f.Format())
			back, err := ParseFormat(f.Format())
			if err != nil || back.Size != f.Size*f.Repeat || len(back.Fields) != 1 || back.Fields[0].Name != "" {
				t.Fatalf("%s: field %q: format %q reads back as %+v, %v", tc.format, f.Name, f.Format(), back, err)
			}
		}
		if s := strings.Join(got, "|"); s != tc.want {
			t.Errorf("%s: field formats %q, want %q", tc.format, s, tc.want)
		}
	}
}

func TestNumPyExtensions(t *testing.T) {
	for _, tc := range []struct {
		format      string
		size, align int
		in          []any
		want        []any
	}{
		{"g", 16, 16, []any{1.5}, []any{1.5}},
		{">g", 16, 1, []any{-3.0e300}, []any{-3.0e300}},
		{"Zg", 32, 16, []any{complex(1, -2)}, []any{complex(1, -2)}},
		{"3w", 12, 4, []any{"aé"}, []any{"aé"}},
		{">2w", 8, 1, []any{"\U0001F600"}, []any{"\U0001F600"}},
		{"^bd", 9, 1, []any{int8(1), 2.5}, []any{int64(1), 2.5}},
		{"^bl", 9, 1, []any{int8(1), 7}, []any{int64(1), int64(7)}},
		{"T{^b:a:@d:b:}", 16, 8, []any{[]any{int8(1), 2.0}}, []any{[]any{int64(1), 2.0}}},
	} {
		d, err := ParseFormat(tc.format)
		if err != nil {
			t.Fatalf("ParseFormat(%q): %v", tc.format, err)
		}
		if d.Size != tc.size || d.Align != tc.align {
			t.Errorf("%q: size %d align %d, want %d %d", tc.format, d.Size, d.Align, tc.size, tc.align)
		}
		b := make([]byte, d.Size)
		if err := d.Pack(b, tc.in); err != nil {
			t.Fatalf("%q: Pack: %v", tc.format, err)
		}
		got, err := d.Unpack(b)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q: Unpack = %v, %v; want %v", tc.format, got, err, tc.want)
		}
		back, err := ParseFormat(d.Format())
		if err != nil || back.Size != d.Size || back.Canonical() != d.Canonical() {
			t.Errorf("%q: Format %q reads back as %+v, %v", tc.format, d.Format(), back, err)
		}
	}
}

func TestExtendedPrecision(t *testing.T) {
	le := binary.LittleEndian
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -2.5, math.MaxFloat64, math.SmallestNonzeroFloat64,
		1e-310, math.Inf(1), math.Inf(-1), math.Pi} {
		e := make([]byte, 16)
		float64ToExtended(le, e, x)
		if y := extendedToFloat64(le, e); math.Float64bits(y) != math.Float64bits(x) {
			t.Errorf("%g: round trip gives %g (% x)", x, y, e)
		}
	}
	// 1.0 in x87 extended: significand 1<<63, exponent 16383.
	e := make([]byte, 16)
	float64ToExtended(le, e, 1)
	if want := []byte{0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f, 0, 0, 0, 0, 0, 0}; !bytes.Equal(e, want) {
		t.Errorf("1.0 = % x, want % x", e, want)
	}
	// 1 + 2**-60 rounds to 1; a value beyond float64's range is +Inf.
	le.PutUint64(e, 1<<63|1<<3)
	if y := extendedToFloat64(le, e); y != 1 {
		t.Errorf("1+2**-60 reads as %g", y)
	}
	le.PutUint16(e[8:], 0x7ffe)
	if y := extendedToFloat64(le, e); !math.IsInf(y, 1) {
		t.Errorf("huge reads as %g", y)
	}
	float64ToExtended(le, e, math.NaN())
	if y := extendedToFloat64(le, e); !math.IsNaN(y) {
		t.Errorf("NaN reads as %g", y)
	}
}

// TestParseFormatCtypesCodes checks the codes memview reads as the array
// module and ctypes write them: 'u' (wchar_t, UCS-4 here, as 'w') and 'P'
// under a standard prefix (c_void_p's "<P": the pointer size).
func TestParseFormatCtypesCodes(t *testing.T) {
	for _, tc := range []struct{ in, canonical string }{
		{"u", mustParse(t, "w").Canonical()}, {"<u", mustParse(t, "<w").Canonical()},
		{"3u", mustParse(t, "3w").Canonical()}, {"<P", mustParse(t, "<Q").Canonical()},
		{"T{!P:p:}", mustParse(t, "T{!Q:p:}").Canonical()}, {"=3P", mustParse(t, "=3Q").Canonical()},
	} {
		if got := mustParse(t, tc.in).Canonical(); got != tc.canonical {
			t.Errorf("ParseFormat(%q): canonical %q, want %q", tc.in, got, tc.canonical)
		}
	}
	if _, err := numpyReading("u"); err == nil {
		t.Error("numpyReading(\"u\") succeeds; NumPy refuses 'u' (UCS-2)")
	}
}
