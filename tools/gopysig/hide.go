package main

// Hiding what gopy cannot bind.
//
// gopy 0.4 stops on, or writes Go or Python that does not compile for, some
// exported declarations that are everyday Go: generic types (their wrappers
// name `Pair[K comparable, V any]`), type constraints, type aliases (bound
// twice, or "not yet supported"), anything whose type mentions an instance of
// a generic type (`atomic.Pointer[T]` fields, functions returning
// `Pair[int, string]`), and the names None, True and False (Python keywords,
// `def None():`). A package that has one of them would not build at all, or
// not import. So before gopy reads the packages, `gopysig -hide DIR` rewrites,
// in copies under DIR, the name of each such declaration, and every use of it
// in the packages built, to an unexported one; gopy and gopysig then read the
// packages through a build overlay (go build -overlay) with those copies, and
// bind everything else. The extension itself is compiled from the packages as
// they are: the generated code names only what gopy bound, which the rewrite
// did not touch.

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Hidden is one declaration gopy does not see, and why.
type Hidden struct {
	Name string `json:"name"` // package.Name, or package.Type.Field
	Why  string `json:"why"`
}

// HideReport is what `gopysig -hide` prints: the overlay file to hand the go
// command ("" when nothing is hidden) and what it hides.
type HideReport struct {
	Overlay string   `json:"overlay"`
	Hidden  []Hidden `json:"hidden"`
}

// pyKeyword are the Python keywords a Go name can spell (an exported one starts
// with a capital letter): gopy would write `def None():`, which Python refuses.
var pyKeyword = map[string]bool{"None": true, "True": true, "False": true}

// hider collects the objects to hide, with their reasons.
type hider struct {
	why map[types.Object]string
}

// mentions reports whether t names an instance of a generic type, a type
// parameter, or a hidden type.
func (h *hider) mentions(t types.Type, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		return h.mentions(types.Unalias(t), seen)
	case *types.TypeParam:
		return true
	case *types.Named:
		if t.TypeArgs().Len() > 0 || t.TypeParams().Len() > 0 {
			return true
		}
		_, hidden := h.why[t.Obj()]
		return hidden
	case *types.Pointer:
		return h.mentions(t.Elem(), seen)
	case *types.Slice:
		return h.mentions(t.Elem(), seen)
	case *types.Array:
		return h.mentions(t.Elem(), seen)
	case *types.Chan:
		return h.mentions(t.Elem(), seen)
	case *types.Map:
		return h.mentions(t.Key(), seen) || h.mentions(t.Elem(), seen)
	case *types.Signature:
		return h.mentionsTuple(t.Params(), seen) || h.mentionsTuple(t.Results(), seen)
	case *types.Struct:
		for i := range t.NumFields() {
			if h.mentions(t.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}

func (h *hider) mentionsTuple(t *types.Tuple, seen map[types.Type]bool) bool {
	for i := range t.Len() {
		if h.mentions(t.At(i).Type(), seen) {
			return true
		}
	}
	return false
}

func (h *hider) uses(t types.Type) bool { return h.mentions(t, map[types.Type]bool{}) }

// hide records obj with its reason; reports whether it is new.
func (h *hider) hide(obj types.Object, why string) bool {
	if _, ok := h.why[obj]; ok {
		return false
	}
	h.why[obj] = why
	return true
}

// collect finds, to a fixed point (a hidden type hides what uses it), the
// exported declarations of pkgs gopy cannot bind.
func (h *hider) collect(pkgs []*packages.Package) {
	for changed := true; changed; {
		changed = false
		for _, p := range pkgs {
			scope := p.Types.Scope()
			for _, name := range scope.Names() {
				obj := scope.Lookup(name)
				if !obj.Exported() {
					continue
				}
				if _, done := h.why[obj]; done {
					continue
				}
				if pyKeyword[obj.Name()] {
					changed = h.hide(obj, "its name is a Python keyword") || changed
					continue
				}
				switch obj := obj.(type) {
				case *types.TypeName:
					changed = h.typeName(obj) || changed
				case *types.Func:
					sig := obj.Type().(*types.Signature)
					if sig.TypeParams().Len() > 0 {
						changed = h.hide(obj, "generic function") || changed
					} else if h.uses(sig) {
						changed = h.hide(obj, "its signature uses a generic type") || changed
					}
				case *types.Var:
					if h.uses(obj.Type()) {
						changed = h.hide(obj, "its type is generic") || changed
					}
				}
			}
		}
	}
}

// typeName hides a type gopy cannot bind, or the exported fields of a struct
// that gopy cannot bind; reports whether anything new was hidden.
func (h *hider) typeName(obj *types.TypeName) bool {
	if obj.IsAlias() {
		return h.hide(obj, "type alias (the functions that use it are bound)")
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return false
	}
	if named.TypeParams().Len() > 0 {
		return h.hide(obj, "generic type")
	}
	changed := false
	for i := range named.NumMethods() {
		if m := named.Method(i); pyKeyword[m.Name()] {
			changed = h.hide(m, "its name is a Python keyword") || changed
		}
	}
	if iface, ok := named.Underlying().(*types.Interface); ok && !iface.IsMethodSet() {
		return h.hide(obj, "type constraint")
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		if h.uses(named.Underlying()) {
			return h.hide(obj, "its underlying type is generic")
		}
		return changed
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Exported() && !f.Embedded() && pyKeyword[f.Name()] {
			changed = h.hide(f, "its name is a Python keyword") || changed
			continue
		}
		if !h.uses(f.Type()) {
			continue
		}
		if f.Embedded() { // an embedded field's name is its type's: the type goes
			return h.hide(obj, "it embeds a generic type")
		}
		if f.Exported() {
			changed = h.hide(f, "its type is generic") || changed
		}
	}
	return changed
}

// edit is one identifier to rename in a source file.
type edit struct {
	offset int
	old    string
	new    string
}

// hideIn writes the overlay under dir and returns the report.
func hideIn(dir string, paths []string) (HideReport, error) {
	report := HideReport{Hidden: []Hidden{}}
	mode := packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports
	pkgs, err := packages.Load(&packages.Config{Mode: mode}, paths...)
	if err != nil {
		return report, err
	}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return report, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
	}
	h := &hider{why: map[types.Object]string{}}
	h.collect(pkgs)
	if len(h.why) == 0 {
		return report, nil
	}
	newName := map[types.Object]string{}
	for obj := range h.why {
		name := "_" + obj.Name()
		if obj.Pkg() != nil {
			for obj.Pkg().Scope().Lookup(name) != nil {
				name = "_" + name
			}
		}
		newName[obj] = name
	}
	// Every identifier that declares or uses a hidden object, in every package
	// built, at its place in the file as written (cgo's files map back by
	// their line directives).
	edits := map[string][]edit{}
	var shared []string
	for _, p := range pkgs {
		for _, idents := range []map[*ast.Ident]types.Object{p.TypesInfo.Defs, p.TypesInfo.Uses} {
			for id, obj := range idents {
				if obj == nil {
					continue
				}
				if o, ok := obj.(*types.Var); ok && o.Origin() != o {
					obj = o.Origin()
				}
				to, ok := newName[obj]
				if !ok {
					continue
				}
				if obj.Pkg() != p.Types {
					// An unexported name cannot be used from another package.
					shared = append(shared, fmt.Sprintf("%s uses %s (%s)", p.PkgPath, qualified(obj), h.why[obj]))
					continue
				}
				pos := p.Fset.PositionFor(id.Pos(), true)
				edits[pos.Filename] = append(edits[pos.Filename], edit{offset: lineColOffset(pos), old: id.Name, new: to})
			}
		}
	}
	if len(shared) > 0 {
		sort.Strings(shared)
		return report, fmt.Errorf("gopy cannot bind what one package built here takes from another: %s; "+
			"build such packages in separate extensions, or keep the shared declarations out of their "+
			"exported API", strings.Join(dedupe(shared), "; "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return report, err
	}
	replace := map[string]string{}
	files := make([]string, 0, len(edits))
	for f := range edits {
		files = append(files, f)
	}
	sort.Strings(files)
	for i, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return report, fmt.Errorf("reading %s: %w", file, err)
		}
		out, err := apply(src, edits[file])
		if err != nil {
			return report, fmt.Errorf("%s: %w", file, err)
		}
		copyPath := filepath.Join(dir, fmt.Sprintf("%d_%s", i, filepath.Base(file)))
		if err := os.WriteFile(copyPath, out, 0o644); err != nil {
			return report, err
		}
		replace[file] = copyPath
	}
	overlay := filepath.Join(dir, "overlay.json")
	data, err := json.MarshalIndent(map[string]any{"Replace": replace}, "", " ")
	if err != nil {
		return report, err
	}
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		return report, err
	}
	report.Overlay = overlay
	for obj, why := range h.why {
		report.Hidden = append(report.Hidden, Hidden{Name: qualified(obj), Why: why})
	}
	sort.Slice(report.Hidden, func(i, j int) bool { return report.Hidden[i].Name < report.Hidden[j].Name })
	return report, nil
}

// qualified names obj as Python sees it: package.Name, or package.Type.Field
// for a field.
func qualified(obj types.Object) string {
	pkg := ""
	if obj.Pkg() != nil {
		pkg = obj.Pkg().Name() + "."
	}
	if v, ok := obj.(*types.Var); ok && v.IsField() {
		for _, name := range obj.Pkg().Scope().Names() {
			tn, ok := obj.Pkg().Scope().Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					if st.Field(i) == v {
						return pkg + name + "." + v.Name()
					}
				}
			}
		}
	}
	return pkg + obj.Name()
}

// lineColOffset returns the byte offset of pos (line and byte column, both
// from 1) in its file as written, or -1.
func lineColOffset(pos token.Position) int {
	src, err := os.ReadFile(pos.Filename)
	if err != nil || pos.Line < 1 || pos.Column < 1 {
		return -1
	}
	line := 1
	for i := range src {
		if line == pos.Line {
			return i + pos.Column - 1
		}
		if src[i] == '\n' {
			line++
		}
	}
	return -1
}

// apply makes the renames in src; each must find its old name where the
// type checker saw it.
func apply(src []byte, es []edit) ([]byte, error) {
	sort.Slice(es, func(i, j int) bool { return es[i].offset > es[j].offset })
	out := append([]byte(nil), src...)
	last := -1
	for _, e := range es {
		if e.offset == last {
			continue // the same identifier, seen as a definition and a use
		}
		if e.offset < 0 || e.offset+len(e.old) > len(out) || string(out[e.offset:e.offset+len(e.old)]) != e.old {
			return nil, fmt.Errorf("cannot find %s where the type checker saw it", e.old)
		}
		out = append(out[:e.offset], append([]byte(e.new), out[e.offset+len(e.old):]...)...)
		last = e.offset
	}
	return out, nil
}

// runHide is `gopysig -hide DIR <import path>...`.
func runHide(dir string, paths []string) {
	report, err := hideIn(dir, paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gopysig -hide:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(report); err != nil {
		fmt.Fprintln(os.Stderr, "gopysig -hide:", err)
		os.Exit(1)
	}
}

// dedupe drops repeated entries of a sorted list.
func dedupe(xs []string) []string {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
