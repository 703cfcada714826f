// Command gopysig prints, as JSON, the Go signatures of the functions and
// methods that gopy binds in the packages named on its command line. build.py
// runs it when it builds a package together with memview (--with), so that
// memview's Python layer knows which parameters take memory: a []T parameter
// accepts a NumPy or memview array, a *memview.Array parameter any buffer.
//
// Usage:
//
//	gopysig <import path>...
//	gopysig -hide DIR <import path>...
//
// The second form writes, under DIR, the build overlay that hides from gopy
// what it cannot bind (hide.go), and prints it with what it hides, as JSON.
// Called as gopackagesdriver, with MEMVIEW_GOPY_OVERLAY set, it is the package
// driver that shows gopy and gopysig the packages through that overlay
// (driver.go).
//
// It runs in the build module gopy runs in, and names parameters as gopy's
// Python wrappers do.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"golang.org/x/tools/go/packages"
)

// Param is one parameter: its Python name and its full Go type.
type Param struct {
	Name string `json:"name"`
	// GoName: the name in the Go source ("" for an unnamed parameter).
	GoName string `json:"go_name"`
	Type   string `json:"type"`
	// Handle: gopy's wrapper passes the argument's handle (x.handle), so it
	// must be a gopy object; false for what gopy converts from a Python value
	// (numbers, strings, bools and named types of them, errors, funcs).
	Handle bool `json:"handle"`
	// Func: a Go func, which gopy's wrapper takes as a Python callable.
	Func bool `json:"func"`
	// Under: the type's underlying type when it is a basic type or a slice of
	// one (a named `type Float64Data []float64` is "[]float64"), else empty
	// (fastkind.go).
	Under string `json:"under,omitempty"`
	// ReadOnly: for a slice parameter, what the read-only analysis found
	// (readonly.go): "proven", "store" or "inconclusive", and why.
	ReadOnly    string `json:"readonly,omitempty"`
	ReadOnlyWhy string `json:"readonly_why,omitempty"`
	// Returns: the function may return a slice of this parameter's memory.
	Returns bool `json:"returns,omitempty"`
	// Value: for a struct of plain fields taken by value, its fields
	// (valuekind.go): the entries take any object with those attributes.
	Value *Value `json:"value,omitempty"`
}

// Func is a function or method: its parameters (the receiver excluded) and
// the Go types of its results.
type Func struct {
	Name     string   `json:"name"`
	Params   []Param  `json:"params"`
	Results  []string `json:"results"`
	Variadic bool     `json:"variadic"`
	// Values: for each result, how memview's entries can hand it over by
	// value (valuekind.go), or nil.
	Values []*Value `json:"values"`
	// Blocks: why the function may block (blocking.go), "" where nothing it
	// reaches may.
	Blocks string `json:"blocks"`
	// ValueRecv: a method with a value receiver (callable on a value object).
	ValueRecv bool `json:"value_recv,omitempty"`
	// Doc: the doc comment ("" where the package's syntax was not loaded).
	Doc string `json:"doc"`
	// Go: the declaration as Go writes it, the package's own names
	// unqualified ("func Hash(b []byte) uint64", "func (p Point) Scaled(f float64) Point").
	Go string `json:"go"`
}

// Package is what gopysig reports for one package.
type Package struct {
	Path    string            `json:"path"`
	Name    string            `json:"name"`
	Funcs   []Func            `json:"funcs"`
	Methods map[string][]Func `json:"methods"` // by type name
	// IfaceMethods: the exported methods of each exported interface type,
	// which gopy binds as methods of its class (the stub lists them).
	IfaceMethods map[string][]Func `json:"iface_methods"`
	// Structs: the exported structs of plain fields (valuekind.go), by name.
	Structs map[string]*Value `json:"structs"`
	// Errors: the exported package-level variables and constants whose type
	// implements error (its sentinel errors), by name.
	Errors []string `json:"errors"`
	// ErrorTypes: the exported named types whose values or pointers
	// implement error, by name.
	ErrorTypes []string `json:"error_types"`
	// Consts and Vars: the other exported constants and variables, with their
	// types (untyped constants as "untyped int", ...).
	Consts map[string]string `json:"consts"`
	Vars   map[string]string `json:"vars"`
	// ConstValues: the exported constants of a basic type, each as a Python
	// literal of full precision (an integer exactly, a float as float64
	// rounds it, a string quoted as JSON quotes it, True or False).
	ConstValues map[string]string `json:"const_values"`
	// Types: every exported named type (aliases left out), with its
	// underlying type's kind: "struct", "interface", a basic type's name, or
	// for a slice the slice type ("[]float64").
	Types map[string]string `json:"types"`
	// Fields: the exported fields (embedded ones left out) of each exported
	// struct, with their types.
	Fields map[string][]Field `json:"fields"`
}

func main() {
	if overlay := os.Getenv("MEMVIEW_GOPY_OVERLAY"); overlay != "" && filepath.Base(os.Args[0]) == driverName {
		if err := runDriver(overlay, os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, driverName+":", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) < 2 || (os.Args[1] == "-hide" && len(os.Args) < 4) {
		fmt.Fprintln(os.Stderr, "usage: gopysig <import path>... | gopysig -hide DIR <import path>...")
		os.Exit(2)
	}
	if os.Args[1] == "-hide" {
		runHide(os.Args[2], os.Args[3:])
		return
	}
	// The whole program's syntax, for the read-only analysis (readonly.go);
	// MEMVIEW_READONLY_ANALYSIS=0 leaves it out (every slice parameter is then
	// inconclusive).
	mode := packages.LoadAllSyntax
	analyse := os.Getenv("MEMVIEW_READONLY_ANALYSIS") != "0"
	if !analyse {
		mode = packages.NeedName | packages.NeedTypes
	}
	pkgs, err := packages.Load(&packages.Config{Mode: mode}, os.Args[1:]...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gopysig:", err)
		os.Exit(1)
	}
	if len(pkgs) != len(os.Args)-1 {
		fmt.Fprintf(os.Stderr, "gopysig: %d packages found for %d import paths\n", len(pkgs), len(os.Args)-1)
		os.Exit(1)
	}
	var out []Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			for _, e := range p.Errors {
				fmt.Fprintln(os.Stderr, "gopysig:", e)
			}
			os.Exit(1)
		}
	}
	var ro *roAnalysis
	if analyse {
		ro = newROAnalysis(pkgs)
	}
	for _, p := range pkgs {
		out = append(out, describe(p.Types, ro, docComments(p)))
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "gopysig:", err)
		os.Exit(1)
	}
}

// docComments are the doc comments of p's functions and methods, by the
// position of their names (empty without p's syntax).
func docComments(p *packages.Package) map[token.Pos]string {
	out := map[token.Pos]string{}
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
				out[fd.Name.Pos()] = fd.Doc.Text()
			}
		}
	}
	return out
}

func describe(p *types.Package, ro *roAnalysis, docs map[token.Pos]string) Package {
	out := Package{Path: p.Path(), Name: p.Name(), Funcs: []Func{}, Methods: map[string][]Func{},
		IfaceMethods: map[string][]Func{},
		Structs:      map[string]*Value{}, Errors: []string{}, ErrorTypes: []string{}, Consts: map[string]string{}, Vars: map[string]string{},
		ConstValues: map[string]string{},
		Types:       map[string]string{}, Fields: map[string][]Field{}}
	scope := p.Scope()
	names := scope.Names()
	sort.Strings(names)
	errType := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	errPos := map[string]token.Pos{}
	for _, name := range names {
		switch obj := scope.Lookup(name).(type) {
		case *types.Var, *types.Const:
			if !obj.Exported() {
				continue
			}
			if types.Implements(obj.Type(), errType) {
				out.Errors = append(out.Errors, name)
				errPos[name] = obj.Pos()
			} else if c, ok := obj.(*types.Const); ok {
				out.Consts[name] = typeString(obj.Type())
				if lit := pyLiteral(c.Val()); lit != "" {
					out.ConstValues[name] = lit
				}
			} else {
				out.Vars[name] = typeString(obj.Type())
			}
		case *types.Func:
			if obj.Exported() {
				out.Funcs = append(out.Funcs, signature(obj, ro, docs))
			}
		case *types.TypeName:
			if !obj.Exported() || obj.IsAlias() {
				continue
			}
			named, ok := obj.Type().(*types.Named)
			if !ok {
				continue
			}
			if types.Implements(named, errType) || types.Implements(types.NewPointer(named), errType) {
				if _, isIface := named.Underlying().(*types.Interface); !isIface && named.TypeParams().Len() == 0 {
					out.ErrorTypes = append(out.ErrorTypes, name)
				}
			}
			switch u := named.Underlying().(type) {
			case *types.Struct:
				out.Types[name] = "struct"
				fs := []Field{}
				for i := range u.NumFields() {
					if f := u.Field(i); f.Exported() && !f.Embedded() {
						fs = append(fs, Field{Name: f.Name(), Type: typeString(f.Type())})
					}
				}
				out.Fields[name] = fs
			case *types.Interface:
				out.Types[name] = "interface"
				ms := types.NewMethodSet(named)
				for i := range ms.Len() {
					if m, ok := ms.At(i).Obj().(*types.Func); ok && m.Exported() {
						out.IfaceMethods[name] = append(out.IfaceMethods[name], signature(m, ro, docs))
					}
				}
			case *types.Basic:
				out.Types[name] = u.Name()
			case *types.Slice:
				out.Types[name] = typeString(u) // a named slice type: gopy's sequence class
			case *types.Array:
				out.Types[name] = "other"
				if v := valueKind(named); v != nil && v.Kind == "array" && v.Elem == "uint8" {
					out.Types[name] = fmt.Sprintf("[%d]uint8", v.Len) // a named [N]byte: a bytes subclass
				}
			default:
				out.Types[name] = "other"
			}
			if v := valueKind(named); v != nil && v.Kind == "struct" {
				out.Structs[name] = v
			}
			ms := types.NewMethodSet(types.NewPointer(named))
			var fs []Func
			for i := range ms.Len() {
				if m, ok := ms.At(i).Obj().(*types.Func); ok && m.Exported() {
					fs = append(fs, signature(m, ro, docs))
				}
			}
			if len(fs) > 0 {
				out.Methods[name] = fs
			}
		}
	}
	// in the order of their declarations: an alias after the variable it copies
	sort.SliceStable(out.Errors, func(i, j int) bool { return errPos[out.Errors[i]] < errPos[out.Errors[j]] })
	return out
}

func signature(f *types.Func, ro *roAnalysis, docs map[token.Pos]string) Func {
	sig := f.Type().(*types.Signature)
	readonly := ro.params(f)
	fn0 := ro.blocking(f)
	fn := Func{Name: f.Name(), Params: []Param{}, Results: []string{}, Variadic: sig.Variadic(), Blocks: fn0,
		Go: goDecl(f), Doc: docs[f.Pos()]}
	if r := sig.Recv(); r != nil {
		_, ptr := r.Type().(*types.Pointer)
		fn.ValueRecv = !ptr
	}
	for i := range sig.Params().Len() {
		v := sig.Params().At(i)
		t := v.Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			t = types.Unalias(t).(*types.Slice).Elem() // gopy takes the elements as *args
		}
		_, isFunc := unalias(t).Underlying().(*types.Signature)
		p := Param{Name: pySafeArg(v.Name(), i), GoName: v.Name(), Type: typeString(v.Type()),
			Handle: byHandle(t), Func: isFunc, Under: underKind(v.Type())}
		// a struct of plain fields, or a [N]byte: taken by value on the fast path
		if val := valueKind(v.Type()); val != nil && (val.Kind == "struct" || (val.Kind == "array" && val.Elem == "uint8")) &&
			!(sig.Variadic() && i == sig.Params().Len()-1) {
			p.Value = val
		}
		if r, ok := readonly[i]; ok {
			p.ReadOnly, p.ReadOnlyWhy, p.Returns = r[0], r[1], r[2] != ""
		} else if _, isSlice := v.Type().Underlying().(*types.Slice); isSlice {
			p.ReadOnly, p.ReadOnlyWhy = roInconclusive, "not analysed"
		}
		fn.Params = append(fn.Params, p)
	}
	for i := range sig.Results().Len() {
		fn.Results = append(fn.Results, typeString(sig.Results().At(i).Type()))
		fn.Values = append(fn.Values, valueKind(sig.Results().At(i).Type()))
	}
	return fn
}

// pyLiteral is v as a Python literal of full precision ("" for a complex value).
func pyLiteral(v constant.Value) string {
	switch v.Kind() {
	case constant.Int:
		return v.ExactString()
	case constant.Float:
		f, _ := constant.Float64Val(v)
		return strconv.FormatFloat(f, 'g', -1, 64)
	case constant.String:
		b, _ := json.Marshal(constant.StringVal(v))
		return string(b)
	case constant.Bool:
		if constant.BoolVal(v) {
			return "True"
		}
		return "False"
	}
	return ""
}

// goDecl is f's declaration as Go source writes it, without its body: the
// names of f's own package unqualified, other packages by their names.
func goDecl(f *types.Func) string {
	q := func(p *types.Package) string {
		if p == f.Pkg() {
			return ""
		}
		return p.Name()
	}
	sig := f.Type().(*types.Signature)
	var b bytes.Buffer
	b.WriteString("func ")
	if r := sig.Recv(); r != nil {
		b.WriteString("(")
		if r.Name() != "" && r.Name() != "_" {
			b.WriteString(r.Name() + " ")
		}
		b.WriteString(types.TypeString(r.Type(), q) + ") ")
	}
	b.WriteString(f.Name())
	types.WriteSignature(&b, sig, q)
	return b.String()
}

// byHandle reports whether gopy passes a value of type t to Go by its handle.
// An empty interface (interface{}, any) it converts from a Python str, unless
// the function's doc comment asks for handles (gopy:interface=handle), and
// then its wrapper reads the handle itself.
func byHandle(t types.Type) bool {
	t = unalias(t)
	if types.Identical(t, types.Universe.Lookup("error").Type()) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic, *types.Signature:
		return false
	case *types.Interface:
		return !(u.Empty() && t == u)
	}
	return true
}

// typeString writes t as gopy sees it: type aliases, at any depth, are the
// types they name (`Floats = []float64` is a []float64 parameter).
func typeString(t types.Type) string {
	return types.TypeString(unalias(t), nil)
}

func unalias(t types.Type) types.Type {
	switch t := types.Unalias(t).(type) {
	case *types.Pointer:
		return types.NewPointer(unalias(t.Elem()))
	case *types.Slice:
		return types.NewSlice(unalias(t.Elem()))
	case *types.Array:
		return types.NewArray(unalias(t.Elem()), t.Len())
	case *types.Map:
		return types.NewMap(unalias(t.Key()), unalias(t.Elem()))
	case *types.Chan:
		return types.NewChan(t.Dir(), unalias(t.Elem()))
	default:
		return t
	}
}

// pyKeywords are the names gopy renames (prefixing "my") in its Python wrappers.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "break": true,
	"class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true,
	"is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true, "self": true,
}

// pySafeArg is the name gopy gives parameter i in Python.
func pySafeArg(name string, i int) string {
	if name == "" {
		name = fmt.Sprintf("arg_%d", i)
	}
	if pyKeywords[name] {
		return "my" + name
	}
	return name
}
