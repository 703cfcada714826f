package memview

import (
	"fmt"
	"strconv"
	"strings"
)

// Format returns a canonical PEP 3118 format for d: every gap written as
// explicit 'x' padding, a prefix wherever the mode changes, counts as struct
// writes them and shapes as NumPy does. ParseFormat(d.Format()) gives the
// same size and offsets for any d that ParseFormat returned.
func (d *ItemDesc) Format() string {
	var b strings.Builder
	mode := fmtMode{Native, true, false}
	d.writeFormat(&b, &mode, nil)
	return b.String()
}

// writeFormat writes the items of d to b. mode is the mode in force and is
// updated; end, for a record, is the mode its '}' must see.
func (d *ItemDesc) writeFormat(b *strings.Builder, mode *fmtMode, end *fmtMode) {
	off := 0
	for i := range d.Fields {
		f := &d.Fields[i]
		if f.Offset > off {
			fmt.Fprintf(b, "%dx", f.Offset-off)
		}
		fm := fmtMode{f.Order, f.NativeSize, f.Packed}
		// A record's own mode is the one at its '}', which its last item sets;
		// an empty record keeps the mode it starts in.
		if fm != *mode && (f.Record == nil || len(f.Record.Fields) == 0) {
			b.WriteByte(fm.prefix())
			*mode = fm
		}
		if f.Shape != nil {
			b.WriteByte('(')
			for k, n := range f.Shape {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(n))
			}
			b.WriteByte(')')
		}
		switch {
		case f.Code == "s" || f.Code == "p" || f.Code == "x":
			if f.Size != 1 {
				b.WriteString(strconv.Itoa(f.Size))
			}
		case f.Code == "w":
			if f.Size != 4 {
				b.WriteString(strconv.Itoa(f.Size / 4))
			}
		case f.Shape == nil && f.Repeat != 1:
			b.WriteString(strconv.Itoa(f.Repeat))
		}
		if f.Record != nil {
			b.WriteString("T{")
			f.Record.writeFormat(b, mode, &fm)
			b.WriteByte('}')
		} else {
			b.WriteString(f.Code)
		}
		if f.Name != "" {
			b.WriteString(":" + f.Name + ":")
		}
		off = f.Offset + f.Size*f.Repeat
	}
	switch {
	case end != nil && *end != *mode:
		// The prefix must be followed by an item; "0x" is one of no size.
		b.WriteByte(end.prefix())
		*mode = *end
		fmt.Fprintf(b, "%dx", d.Size-off)
	case d.Size > off:
		fmt.Fprintf(b, "%dx", d.Size-off)
	}
}

// Format returns a format of f alone: an item of one unnamed field with f's
// code, byte order, sizes, shape and record, at offset 0 and filling the
// item. ParseFormat(f.Format()) gives that field back with Name "".
func (f Field) Format() string {
	one := f
	one.Name, one.Offset = "", 0
	d := ItemDesc{Size: f.Size * f.Repeat, Fields: []Field{one}}
	return d.Format()
}
