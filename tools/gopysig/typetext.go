package main

// Writing a type as Go source, aliases spelled out (unalias.go).

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
)

// typeWriter writes one type as the source of the file u rewrites: aliases, at
// any depth, as the types they name (in embedded fields, as their names, which
// name the fields), hidden objects by their overlay names, other packages by
// the file's names for them. A type it cannot write there sets why.
type typeWriter struct {
	u   *unaliaser
	b   strings.Builder
	why string
}

func (w *typeWriter) ok() bool { return w.why == "" }

func (w *typeWriter) fail(format string, args ...any) {
	if w.why == "" {
		w.why = fmt.Sprintf(format, args...)
	}
}

func (w *typeWriter) typ(t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		if types.Unalias(t) == nil {
			w.fail("incomplete alias %s", t.Obj().Name())
			return
		}
		w.typ(types.Unalias(t))
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			w.qualified(types.Unsafe, "Pointer")
			return
		}
		w.predeclared(t.Name())
	case *types.Named:
		w.object(t.Obj())
		if args := t.TypeArgs(); args.Len() > 0 {
			w.b.WriteByte('[')
			for i := range args.Len() {
				if i > 0 {
					w.b.WriteString(", ")
				}
				w.typ(args.At(i))
			}
			w.b.WriteByte(']')
		}
	case *types.TypeParam:
		w.b.WriteString(t.Obj().Name())
	case *types.Pointer:
		w.b.WriteByte('*')
		w.typ(t.Elem())
	case *types.Slice:
		w.b.WriteString("[]")
		w.typ(t.Elem())
	case *types.Array:
		fmt.Fprintf(&w.b, "[%d]", t.Len())
		w.typ(t.Elem())
	case *types.Map:
		w.b.WriteString("map[")
		w.typ(t.Key())
		w.b.WriteByte(']')
		w.typ(t.Elem())
	case *types.Chan:
		w.chanType(t)
	case *types.Signature:
		w.b.WriteString("func")
		w.signature(t)
	case *types.Struct:
		w.structType(t)
	case *types.Interface:
		w.interfaceType(t)
	case *types.Union:
		for i := range t.Len() {
			if i > 0 {
				w.b.WriteString(" | ")
			}
			if t.Term(i).Tilde() {
				w.b.WriteByte('~')
			}
			w.typ(t.Term(i).Type())
		}
	default:
		w.fail("type %s", t)
	}
}

// predeclared writes a predeclared name, unless the package declares its own.
func (w *typeWriter) predeclared(name string) {
	if w.u.p.Types.Scope().Lookup(name) != nil {
		w.fail("%s is redeclared in package %s", name, w.u.p.Types.Name())
		return
	}
	w.b.WriteString(name)
}

// object writes the name of a type (or, for an embedded field, an alias).
func (w *typeWriter) object(obj *types.TypeName) {
	pkg := obj.Pkg()
	if pkg == nil { // error, comparable
		w.predeclared(obj.Name())
		return
	}
	if obj.Parent() != pkg.Scope() {
		w.fail("%s is declared inside a function", obj.Name())
		return
	}
	if pkg == w.u.p.Types {
		if n, ok := w.u.newName[obj]; ok {
			w.b.WriteString(n)
		} else {
			w.b.WriteString(obj.Name())
		}
		return
	}
	if _, hidden := w.u.newName[obj]; hidden || !obj.Exported() {
		w.fail("%s.%s is not exported", pkg.Name(), obj.Name())
		return
	}
	w.qualified(pkg, obj.Name())
}

func (w *typeWriter) qualified(pkg *types.Package, name string) {
	q, ok := w.u.qualifier(pkg)
	if !ok {
		w.fail("package %s may not import %s", w.u.p.PkgPath, pkg.Path())
		return
	}
	if q != "" {
		w.b.WriteString(q + ".")
	}
	w.b.WriteString(name)
}

func (w *typeWriter) chanType(t *types.Chan) {
	switch t.Dir() {
	case types.SendOnly:
		w.b.WriteString("chan<- ")
	case types.RecvOnly:
		w.b.WriteString("<-chan ")
	default:
		w.b.WriteString("chan ")
		if c, ok := types.Unalias(t.Elem()).(*types.Chan); ok && c.Dir() == types.RecvOnly {
			w.b.WriteByte('(') // `chan (<-chan T)`, not `chan<- chan T`
			w.typ(t.Elem())
			w.b.WriteByte(')')
			return
		}
	}
	w.typ(t.Elem())
}

// signature writes a signature's parameters and results (after "func", or a
// method's name).
func (w *typeWriter) signature(sig *types.Signature) {
	w.tuple(sig.Params(), sig.Variadic())
	res := sig.Results()
	switch {
	case res.Len() == 1 && res.At(0).Name() == "":
		w.b.WriteByte(' ')
		w.typ(res.At(0).Type())
	case res.Len() > 0:
		w.b.WriteByte(' ')
		w.tuple(res, false)
	}
}

func (w *typeWriter) tuple(t *types.Tuple, variadic bool) {
	w.b.WriteByte('(')
	for i := range t.Len() {
		if i > 0 {
			w.b.WriteString(", ")
		}
		v := t.At(i)
		if v.Name() != "" {
			w.b.WriteString(w.varName(v) + " ")
		}
		if variadic && i == t.Len()-1 {
			w.b.WriteString("...")
			if s, ok := types.Unalias(v.Type()).(*types.Slice); ok {
				w.typ(s.Elem())
				continue
			}
			w.fail("variadic parameter of type %s", v.Type())
			return
		}
		w.typ(v.Type())
	}
	w.b.WriteByte(')')
}

func (w *typeWriter) varName(v *types.Var) string {
	if n, ok := w.u.newName[v]; ok {
		return n
	}
	return v.Name()
}

func (w *typeWriter) structType(t *types.Struct) {
	if t.NumFields() == 0 {
		w.b.WriteString("struct{}")
		return
	}
	w.b.WriteString("struct{")
	for i := range t.NumFields() {
		if i > 0 {
			w.b.WriteByte(';')
		}
		w.b.WriteByte(' ')
		f := t.Field(i)
		if !f.Exported() && f.Pkg() != w.u.p.Types {
			// The same struct written in another package is another type.
			w.fail("field %s of a struct of package %s", f.Name(), f.Pkg().Name())
			return
		}
		if f.Embedded() {
			w.embedded(f.Type())
		} else {
			w.b.WriteString(w.varName(f) + " ")
			w.typ(f.Type())
		}
		if tag := t.Tag(i); tag != "" {
			w.b.WriteString(" " + strconv.Quote(tag))
		}
	}
	w.b.WriteString(" }")
}

// embedded writes an embedded field's type by the name that names the field.
func (w *typeWriter) embedded(t types.Type) {
	if p, ok := t.(*types.Pointer); ok {
		w.b.WriteByte('*')
		t = p.Elem()
	}
	if a, ok := t.(*types.Alias); ok {
		w.object(a.Obj())
		return
	}
	w.typ(t)
}

func (w *typeWriter) interfaceType(t *types.Interface) {
	if t.NumExplicitMethods() == 0 && t.NumEmbeddeds() == 0 {
		w.b.WriteString("interface{}")
		return
	}
	w.b.WriteString("interface{")
	n := 0
	sep := func() {
		if n > 0 {
			w.b.WriteByte(';')
		}
		w.b.WriteByte(' ')
		n++
	}
	for i := range t.NumExplicitMethods() {
		m := t.ExplicitMethod(i)
		if !m.Exported() && m.Pkg() != w.u.p.Types {
			w.fail("method %s of an interface of package %s", m.Name(), m.Pkg().Name())
			return
		}
		sep()
		w.b.WriteString(m.Name())
		w.signature(m.Type().(*types.Signature))
	}
	for i := range t.NumEmbeddeds() {
		sep()
		w.embedded(t.EmbeddedType(i))
	}
	w.b.WriteString(" }")
}
