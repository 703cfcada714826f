package main

import "go/types"

// Value says how a result of a Go type memview's entries hand over by
// value: a fixed array of a basic type ("array": a tuple, bytes for
// [N]byte) or a struct of exported fields of basic types ("struct": a
// Python value object).
type Value struct {
	Kind   string  `json:"kind"`
	Elem   string  `json:"elem,omitempty"`
	Len    int64   `json:"len,omitempty"`
	Name   string  `json:"name,omitempty"` // the struct's Go name
	Fields []Field `json:"fields,omitempty"`
}

// Field is one field of a struct of plain fields: its name and basic type.
type Field struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// plainBasic is the name of t's basic type when it is a number, bool or
// string memview converts ("" otherwise: complex, unsafe.Pointer, ...).
func plainBasic(t types.Type) string {
	b, ok := unalias(t).Underlying().(*types.Basic)
	if !ok || b.Info()&(types.IsComplex|types.IsUntyped) != 0 || b.Kind() == types.UnsafePointer {
		return ""
	}
	if b.Kind() == types.Uint8 {
		return "uint8"
	}
	if b.Kind() == types.Int32 {
		return "int32"
	}
	return b.Name()
}

// valueKind is the Value of type t, or nil where the entries do not hand it
// over by value.
func valueKind(t types.Type) *Value {
	switch u := unalias(t).Underlying().(type) {
	case *types.Array:
		if e := plainBasic(u.Elem()); e != "" && e != "string" {
			return &Value{Kind: "array", Elem: e, Len: u.Len()}
		}
	case *types.Struct:
		named, ok := unalias(t).(*types.Named)
		if !ok || named.TypeParams().Len() > 0 || u.NumFields() == 0 {
			return nil
		}
		v := &Value{Kind: "struct", Name: named.Obj().Name()}
		for i := range u.NumFields() {
			f := u.Field(i)
			b := plainBasic(f.Type())
			if !f.Exported() || f.Embedded() || b == "" {
				return nil
			}
			v.Fields = append(v.Fields, Field{Name: f.Name(), Type: b})
		}
		return v
	}
	return nil
}
