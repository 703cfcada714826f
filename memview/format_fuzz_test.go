package memview

import (
	"bytes"
	"errors"
	"testing"
)

// formatFuzzSeeds are hand-picked corners; FuzzParseFormat also seeds with
// every format in testdata/formats.json.
var formatFuzzSeeds = []string{
	"", "<", "bi", "ib", "@bq", "<bq", "llh0l", "3s", "0p", "(2,3)d", "(2)3i", "(2)<h",
	"^bd", "^bl", "g", ">Zg", "3w", ">2w:u:", "T{^b:a:@d:b:}", "T{b:a:^g:k:=4w:m:}", "O", "&i",
	"T{<i:a:<d:b:}", "T{i:x:T{d:y:}:z:}", "T{i:a:b:b:}b", "T{b:a:T{<d:x:}:b:c:c:}",
	"T{b:a:xxx>i:b:@l:c:}", "T{3x:a:=i:b:}", "T{b:b:xxx(0)i:z:}", "2T{d:a:b:b:}", "T{<3x}",
	"T{i:a:<0x}b", "<T{}i", "b0i:z:", "(1000000000)T{}", "(1000000000,0)d", "(9)T{(7)0s:x:b:y:}", "i:a:b:b:", " b \t i\n", "bZfZdZe", "300p", "c?nNP",
	"<i>h=q!b@d", "(2,2)T{b:v:}:m:", "T{i", "T{i<}", "9223372036854775807x", "(70000)T{b:a:}",
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range formatFuzzSeeds {
		f.Add(s)
	}
	g := loadGolden(f)
	for _, c := range g.Struct {
		f.Add(c.Format)
	}
	for _, c := range g.Records {
		f.Add(c.Format)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseFormat(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseFormat(%q): error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		if d.Size < 0 || d.Align < 1 {
			t.Fatalf("ParseFormat(%q): size %d align %d", s, d.Size, d.Align)
		}
		comps := d.Components()
		for _, c := range comps {
			n, ok := mulInt(c.Size, c.Repeat)
			if ok {
				n, ok = addInt(c.Offset, n)
			}
			if !ok || c.Offset < 0 || c.Size < 0 || c.Repeat < 0 || n > d.Size {
				t.Fatalf("ParseFormat(%q): component %+v outside the %d-byte item", s, c, d.Size)
			}
		}
		canon := d.Format()
		d2, err := ParseFormat(canon)
		if err != nil {
			t.Fatalf("ParseFormat(%q).Format() = %q does not parse: %v", s, canon, err)
		}
		if d2.Size != d.Size {
			t.Fatalf("ParseFormat(%q).Format() = %q has size %d, want %d", s, canon, d2.Size, d.Size)
		}
		comps2 := d2.Components()
		if len(comps2) != len(comps) {
			t.Fatalf("ParseFormat(%q).Format() = %q has %d components, want %d", s, canon, len(comps2), len(comps))
		}
		for i := range comps {
			a, b := comps[i], comps2[i]
			if a.Offset != b.Offset || a.Size != b.Size || a.Repeat != b.Repeat || a.Code != b.Code || a.Order != b.Order {
				t.Fatalf("ParseFormat(%q).Format() = %q: component %d is %+v, want %+v", s, canon, i, b, a)
			}
		}
		if canon2 := d2.Format(); canon2 != canon {
			t.Fatalf("Format is not canonical: %q -> %q -> %q", s, canon, canon2)
		}
		checkCanonical(t, s, d)
		// An exporter whose items are laid out as C would lay out the format
		// (ctypes' structures) gets items of its size, or an error.
		if c, err := cReading(s); err == nil && c.Size > 0 {
			if dt, err := DTypeOfExport(s, c.Size); err == nil && dt.Itemsize() != c.Size {
				t.Fatalf("DTypeOfExport(%q, %d) has items of %d bytes", s, c.Size, dt.Itemsize())
			}
		}
		// Zeros unpack to zero values, which pack back to zeros. ParseFormat
		// bounds the values that hold no bytes, so a small Size keeps this
		// cheap whatever the format.
		if d.Size > 1<<16 {
			return
		}
		zeros := make([]byte, d.Size)
		vals, err := d.Unpack(zeros)
		if err != nil {
			t.Fatalf("ParseFormat(%q): Unpack(zeros): %v", s, err)
		}
		out := bytes.Repeat([]byte{0xaa}, d.Size)
		if err := d.Pack(out, vals); err != nil {
			t.Fatalf("ParseFormat(%q): Pack(Unpack(zeros)): %v", s, err)
		}
		if !bytes.Equal(out, zeros) {
			t.Fatalf("ParseFormat(%q): Pack(Unpack(zeros)) = %x", s, out)
		}
	})
}

// checkCanonical checks the canonical form of a parsed format: it parses to
// an item of the same size whose canonical form is the same string, and the
// DType of the format (when it has one) has a name that ParseDType reads
// back to a DType of the same layout.
func checkCanonical(t *testing.T, s string, d *ItemDesc) {
	c := d.Canonical()
	d3, err := ParseFormat(c)
	if err != nil {
		t.Fatalf("Canonical(%q) = %q does not parse: %v", s, c, err)
	}
	if d3.Size != d.Size {
		t.Fatalf("Canonical(%q) = %q has size %d, want %d", s, c, d3.Size, d.Size)
	}
	if c3 := d3.Canonical(); c3 != c {
		t.Fatalf("Canonical is not a fixed point: %q -> %q -> %q", s, c, c3)
	}
	dt, err := DTypeFromFormat(s)
	if err != nil {
		if !errors.Is(err, ErrType) {
			t.Fatalf("DTypeFromFormat(%q): error %v does not wrap ErrType", s, err)
		}
		return
	}
	back, err := ParseDType(dt.Name())
	if err != nil {
		t.Fatalf("DTypeFromFormat(%q).Name() = %q does not parse: %v", s, dt.Name(), err)
	}
	if !back.SameLayout(dt) || back.Name() != dt.Name() {
		t.Fatalf("DTypeFromFormat(%q): name %q reads back as %q (%q), not the same layout %q",
			s, dt.Name(), back.Name(), back.Canonical(), dt.Canonical())
	}
	// Arrays of it export the format itself, byte for byte; new arrays of its
	// layout (Normal) the same layout, in a spelling NumPy reads alike where
	// NumPy reads the format given alike.
	if dt.Format() != s && !dt.IsBasic() {
		t.Fatalf("DTypeFromFormat(%q).Format() = %q: respelled", s, dt.Format())
	}
	n := dt.Normal()
	out := n.Format()
	if again, err := DTypeFromFormat(out); err != nil || !again.SameLayout(dt) || n.Normal() != n {
		t.Fatalf("DTypeFromFormat(%q).Normal().Format() = %q: %v, %v: not the same layout", s, out, again, err)
	}
	if !n.IsBasic() && numpyReadsAs(s, dt.Item()) && !numpyReadsAs(out, dt.Item()) {
		t.Fatalf("DTypeFromFormat(%q).Normal().Format() = %q, which NumPy does not read alike", s, out)
	}
}
