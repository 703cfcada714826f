package memview

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// byteLeaves returns d's components that hold bytes as NumPy leaves are
// written in testdata/formats.json: offset, element size, count, byte order.
func byteLeaves(d *ItemDesc) [][]any {
	var out [][]any
	for _, c := range d.Components() {
		if c.Size*c.Repeat == 0 {
			continue
		}
		order := "<"
		if c.Order == Big {
			order = ">"
		}
		out = append(out, []any{float64(c.Offset), float64(c.Size), float64(c.Repeat), order})
	}
	return out
}

// sameNumPyLeaves compares leaves, a NumPy byte order of '|' matching any.
func sameNumPyLeaves(got, want [][]any) bool {
	return slices.EqualFunc(got, want, func(a, b []any) bool {
		return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && (b[3] == "|" || a[3] == b[3])
	})
}

// fieldCount counts d's fields as numpyGolden.Fields does: nested records'
// fields once, and an item of one unnamed field filling it as that field
// (NumPy unwraps it at the top level).
func fieldCount(d *ItemDesc) int {
	if f, ok := d.single(); ok {
		if f.Record != nil {
			return recordFields(f.Record)
		}
		return 0
	}
	return recordFields(d)
}

func recordFields(d *ItemDesc) int {
	n := 0
	for _, f := range d.Fields {
		n++
		if f.Record != nil {
			n += recordFields(f.Record)
		}
	}
	return n
}

// readsAs reports whether d is the layout NumPy's reading g describes.
func readsAs(d *ItemDesc, g *numpyGolden) bool {
	return g != nil && d.Size == g.Size && sameNumPyLeaves(byteLeaves(d), g.Leaves) && fieldCount(d) == g.Fields
}

// TestNumPyReadingGolden holds numpyReading, memview's model of NumPy's
// reader, to NumPy itself: it refuses what NumPy refuses and reads the rest
// as NumPy does, so that numpyReadsAs is true exactly for the formats
// NumPy reads as memview does.
func TestNumPyReadingGolden(t *testing.T) {
	g := loadGolden(t)
	type tcase struct {
		format string
		numpy  *numpyGolden
	}
	var cases []tcase
	for _, c := range g.Struct {
		if !c.Error {
			cases = append(cases, tcase{c.Format, c.NumPy})
		}
	}
	for _, c := range g.Top {
		cases = append(cases, tcase{c.Format, c.NumPy})
	}
	if len(cases) < 1400 {
		t.Fatalf("only %d cases", len(cases))
	}
	alike, differ := 0, 0
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q", tc.format), func(t *testing.T) {
			n, err := numpyReading(tc.format)
			switch {
			case tc.numpy == nil && err == nil:
				t.Fatalf("NumPy refuses the format; numpyReading gives %+v", n)
			case tc.numpy != nil && err != nil:
				t.Fatalf("NumPy reads %+v; numpyReading: %v", *tc.numpy, err)
			case tc.numpy != nil && !readsAs(n, tc.numpy):
				t.Fatalf("numpyReading: size %d leaves %v fields %d; NumPy %+v", n.Size, byteLeaves(n), fieldCount(n), *tc.numpy)
			}
			d, err := ParseFormat(tc.format)
			if err != nil || d.Size == 0 {
				return // no format type: memview refuses it, or items of 0 bytes
			}
			want := readsAs(d, tc.numpy)
			if got := numpyReadsAs(tc.format, d); got != want {
				t.Fatalf("numpyReadsAs = %v; memview reads size %d leaves %v, NumPy %+v", got, d.Size, byteLeaves(d), tc.numpy)
			}
			if want {
				alike++
			} else {
				differ++
			}
		})
	}
	t.Logf("%d formats NumPy reads as memview does, %d it does not", alike, differ)
	if alike < 500 || differ < 200 {
		t.Fatalf("%d formats NumPy reads as memview does, %d it does not: too few of one kind", alike, differ)
	}
}

func TestNormalFormat(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"NumPy reads it alike", "hd", "<h6xd"},
		{"struct's size, NumPy's padding", "ix", "<i1x"},
		{"no padding but NumPy's", "ib", "<ib"},
		{"a repeat stays a count", "3ix", "<3i1x"},
		{"C long", "lx", "<q1x"},
		{"native only codes", "Pb", "<Qb"},
		{"named", "i:a:b:b:", "<i:a:b:b:"},
		{"whitespace", "i 2x d", "<i4xd"},
		{"a basic type", " d ", "d"},
		{"prefix at the end", "e=", "e"},
		{"P", "P", "L"},
		{"n", "n", "l"},
		{"a repeat of n", "3n", "<3q"},
		{"ctypes' c_void_p", "<P", "L"},
		{"wchar_t", "u", "<1w"},
		{"prefix before a shape", "<(2)i", "<2i"},
		{"prefix after a shape", "(2)<i", "<2i"},
		{"shape first", "(2,3)ib", "(2,3)<ib"},
		{"record then byte", "T{i:a:b:b:}b", "<T{i:a:b:b:3x}b"},
		{"record ends standard", "T{i:a:<b:b:}", "<i:a:b:b:"},
		{"record alone", "T{i:a:b:b:}", "<i:a:b:b:3x"},
		{"record of one record", "T{T{i:a:b:b:}}b", "<T{T{i:a:b:b:3x}}b"},
		{"big-endian", ">ib@0q", ">ib3x"},
		{"long double", "gb", "^gb"},
		{"NumPy reads no Pascal strings", "ip", "<i1p"},
		{"nor complex halves", "Zeb", "<Zeb"},
		{"ctypes' structure", "T{<i:a:4x<d:b:}", "<i:a:4xd:b:"},
		{"NumPy's sub-array of sub-arrays", "T{(3)(3)q:m:}", "(3,3)<q:m:"},
		{"NumPy's reading of one", "T{(3)3q:m:}", "(3,3)<q:m:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dt, err := DTypeFromFormat(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if dt.Format() != tc.in {
				t.Fatalf("DTypeFromFormat(%q).Format() = %q: respelled", tc.in, dt.Format())
			}
			if got := dt.Normal().Format(); got != tc.want {
				t.Fatalf("DTypeFromFormat(%q).Normal().Format() = %q, want %q", tc.in, got, tc.want)
			}
			back, err := DTypeFromFormat(tc.want)
			if err != nil || !back.SameLayout(dt) || back.Format() != tc.want || back.Normal() != dt.Normal() {
				t.Fatalf("DTypeFromFormat(%q) = %v (format %q), %v: not the layout of %q", tc.want, back, back.Format(), err, tc.in)
			}
		})
	}
}

// structGrammar matches formats of the struct module's grammar without
// whitespace: one prefix at the start, then counts and codes.
var structGrammar = regexp.MustCompile(`^[@=<>!]?([0-9]*[?cbBhHiIlLqQnNefdspPx])*$`)

// TestNormalGolden checks the formats of every golden format: an
// exporter's string is kept byte for byte, and new arrays of the layout
// (Normal) export the same layout in a spelling NumPy reads alike wherever
// NumPy reads the layout at all, in struct's grammar again for a format of
// struct's grammar.
func TestNormalGolden(t *testing.T) {
	g := loadGolden(t)
	var formats []string
	for _, c := range g.Struct {
		formats = append(formats, c.Format)
	}
	for _, c := range g.Records {
		formats = append(formats, c.Format)
	}
	for _, c := range g.Top {
		formats = append(formats, c.Format)
	}
	respelled := 0
	for _, s := range formats {
		dt, err := DTypeFromFormat(s)
		if err != nil {
			continue
		}
		if dt.Format() != s && s != "" { // the empty format means "B"
			t.Errorf("%q exports %q: respelled", s, dt.Format())
		}
		n := dt.Normal()
		d, out := dt.Item(), n.Format()
		if back := mustParse(t, out); back.Canonical() != d.Canonical() || n.Normal() != n {
			t.Errorf("%q is made as %q, another layout (%q, want %q)", s, out, back.Canonical(), d.Canonical())
		}
		if out != s {
			respelled++
		}
		switch {
		case numpyReadsAs(out, d):
			if structGrammar.MatchString(strings.TrimSpace(s)) && !structGrammar.MatchString(out) {
				t.Errorf("%q, of struct's grammar, is made as %q", s, out)
			}
		case numpyReadsAs(s, d):
			t.Errorf("%q, which NumPy reads alike, is made as %q, which it does not", s, out)
		}
	}
	if respelled < 100 {
		t.Fatalf("only %d formats made in another spelling", respelled)
	}
}

// numpyReadsAs reports whether NumPy reads format s as the layout d: the
// same size, fields, offsets and names (equal canonical formats).
func numpyReadsAs(s string, d *ItemDesc) bool {
	n, err := numpyReading(s)
	return err == nil && n.Canonical() == d.Canonical()
}
