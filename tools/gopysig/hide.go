package main

// Hiding what gopy cannot bind.
//
// gopy (0.4 and 0.5) stops on, or writes Go or Python that does not compile
// for, some exported declarations that are everyday Go: generic types (their
// wrappers name `Pair[K comparable, V any]`), type constraints, type aliases
// ("not yet supported"), anything whose type mentions an instance of
// a generic type (`atomic.Pointer[T]` fields, functions returning
// `Pair[int, string]`), and the names None, True and False (Python keywords,
// `def None():`). A package that has one of them would not build at all, or
// not import. So before gopy reads the packages, `gopysig -hide DIR` rewrites,
// in copies under DIR, the name of each such declaration, and every use of it
// in the packages built, to an unexported one; gopy and gopysig then read the
// packages through a build overlay (go build -overlay) with those copies, and
// bind everything else. What uses an alias is bound, with the alias spelled
// out as the type it names (unalias.go). The extension itself is compiled
// from the packages as they are: the generated code names only what gopy
// bound, which the rewrite did not touch, by names that mean the same there.

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
// command ("" when nothing is hidden or renamed), what it hides, and the
// parameters it renames.
type HideReport struct {
	Overlay string   `json:"overlay"`
	Hidden  []Hidden `json:"hidden"`
	Renamed []Hidden `json:"renamed"`
}

// paramRename is a parameter's new name, and the function it belongs to.
type paramRename struct{ to, where string }

// generatedNames are names gopy's Go code uses besides the packages of the
// bound API and Go's predeclared names: a parameter of that name would hide
// them in the function gopy writes around the bound one.
var generatedNames = []string{"C", "fmt", "unsafe", "reflect", "gopyh", "gopyrt", "os", "sync",
	"strings", "math", "runtime", "errors", "memview", "pyext", "vifc", "goRun", "cret", "_saved_thread", "_gate",
	"_handle", "_fun_arg", "__err", "estr", "handle"}

// paramRenames finds the parameters of the bound functions and methods whose
// names gopy would write into its Go code where they hide something it needs
// there: "_" (written as a value), a package name (`mat lapack64.Tridiagonal`
// in package mat), a predeclared name, a name gopy's code uses itself. Each
// gets a name of its own in the overlay; the function is bound as before
// (the generated code calls it by position), under that parameter name.
func (h *hider) paramRenames(pkgs []*packages.Package) map[types.Object]paramRename {
	reserved := map[string]bool{}
	for _, n := range generatedNames {
		reserved[n] = true
	}
	for _, n := range types.Universe.Names() {
		reserved[n] = true
	}
	var all []*types.Package
	for _, p := range pkgs {
		all = append(all, p.Types)
		all = append(all, p.Types.Imports()...)
	}
	for _, p := range all {
		reserved[p.Name()] = true
	}
	out := map[types.Object]paramRename{}
	for _, p := range pkgs {
		used := map[string]bool{} // every identifier of the package: new names avoid them
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					used[id.Name] = true
				}
				return true
			})
		}
		rename := func(sig *types.Signature, where string) {
			taken := map[string]bool{}
			for i := range sig.Params().Len() {
				v := sig.Params().At(i)
				if v.Name() != "_" && !reserved[v.Name()] {
					continue
				}
				to := v.Name() + "_"
				if v.Name() == "_" {
					to = fmt.Sprintf("arg_%d", i)
				}
				for used[to] || reserved[to] || taken[to] {
					to += "_"
				}
				taken[to] = true
				out[v] = paramRename{to: to, where: where}
			}
		}
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if _, hidden := h.why[obj]; hidden || !obj.Exported() {
				continue
			}
			switch obj := obj.(type) {
			case *types.Func:
				rename(obj.Type().(*types.Signature), qualified(obj))
			case *types.TypeName:
				named, ok := obj.Type().(*types.Named)
				if !ok || obj.IsAlias() {
					continue
				}
				methods := []*types.Func{}
				for i := range named.NumMethods() {
					methods = append(methods, named.Method(i))
				}
				if iface, ok := named.Underlying().(*types.Interface); ok {
					for i := range iface.NumExplicitMethods() {
						methods = append(methods, iface.ExplicitMethod(i))
					}
				}
				for _, m := range methods {
					if _, hidden := h.why[m]; !hidden && m.Exported() {
						rename(m.Type().(*types.Signature), qualified(obj)+"."+m.Name())
					}
				}
			}
		}
	}
	return out
}

// pyKeyword are the Python keywords a Go name can spell (an exported one starts
// with a capital letter): gopy would write `def None():`, which Python refuses.
var pyKeyword = map[string]bool{"None": true, "True": true, "False": true}

// hider collects the objects to hide, with their reasons.
type hider struct {
	why map[types.Object]string
}

// mentions returns what in t gopy cannot bind — an instance of a generic
// type, a type parameter, or a type left out — written for the build's
// message, or "" when there is nothing.
func (h *hider) mentions(t types.Type, seen map[types.Type]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		return h.mentions(types.Unalias(t), seen)
	case *types.TypeParam:
		return "a type parameter"
	case *types.Named:
		if t.TypeArgs().Len() > 0 || t.TypeParams().Len() > 0 {
			return "a generic type (" + types.TypeString(t, shortPkg) + ")"
		}
		if _, hidden := h.why[t.Obj()]; hidden {
			return "a type left out (" + types.TypeString(t, shortPkg) + ")"
		}
	case *types.Pointer:
		return h.mentions(t.Elem(), seen)
	case *types.Slice:
		return h.mentions(t.Elem(), seen)
	case *types.Array:
		return h.mentions(t.Elem(), seen)
	case *types.Chan:
		return h.mentions(t.Elem(), seen)
	case *types.Map:
		if m := h.mentions(t.Key(), seen); m != "" {
			return m
		}
		return h.mentions(t.Elem(), seen)
	case *types.Signature:
		if m := h.mentionsTuple(t.Params(), seen); m != "" {
			return m
		}
		return h.mentionsTuple(t.Results(), seen)
	case *types.Struct:
		for i := range t.NumFields() {
			if m := h.mentions(t.Field(i).Type(), seen); m != "" {
				return m
			}
		}
	}
	return ""
}

func (h *hider) mentionsTuple(t *types.Tuple, seen map[types.Type]bool) string {
	for i := range t.Len() {
		if m := h.mentions(t.At(i).Type(), seen); m != "" {
			return m
		}
	}
	return ""
}

func (h *hider) uses(t types.Type) string { return h.mentions(t, map[types.Type]bool{}) }

// shortPkg qualifies names by package name, as Python sees them.
func shortPkg(p *types.Package) string { return p.Name() }

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
					} else if m := badCallback(sig); m != "" {
						changed = h.hide(obj, m) || changed
					} else if m := h.uses(sig); m != "" {
						changed = h.hide(obj, "its signature uses "+m) || changed
					}
				case *types.Var:
					if m := h.uses(obj.Type()); m != "" {
						changed = h.hide(obj, "its type uses "+m) || changed
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
		m := named.Method(i)
		if !m.Exported() {
			continue
		}
		if pyKeyword[m.Name()] {
			changed = h.hide(m, "its name is a Python keyword") || changed
		} else if why := badCallback(m.Type().(*types.Signature)); why != "" {
			changed = h.hide(m, why) || changed
		}
	}
	if iface, ok := named.Underlying().(*types.Interface); ok && !iface.IsMethodSet() {
		return h.hide(obj, "type constraint")
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		if m := h.uses(named.Underlying()); m != "" {
			return h.hide(obj, "its underlying type uses "+m)
		}
		return changed
	}
	if st.NumFields() > 0 && st.Field(0).Embedded() && predeclared(st.Field(0).Type()) {
		// gopy makes a struct's first embedded field its Python base class,
		// and stops on one with no package (`struct{ string }`).
		return h.hide(obj, "it embeds a predeclared type first")
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if a := embeddedAlias(f); a != nil && a.Obj().Pkg() == obj.Pkg() && a.Obj().Exported() {
			// The field is named after the alias, which is renamed: so is it.
			changed = h.hide(f, "it embeds type alias "+a.Obj().Name()) || changed
			continue
		}
		if f.Exported() && !f.Embedded() && pyKeyword[f.Name()] {
			changed = h.hide(f, "its name is a Python keyword") || changed
			continue
		}
		m := h.uses(f.Type())
		if m == "" {
			continue
		}
		if f.Embedded() { // an embedded field's name is its type's: the type goes
			return h.hide(obj, "it embeds "+m)
		}
		if f.Exported() {
			changed = h.hide(f, "its type uses "+m) || changed
		}
	}
	return changed
}

// embeddedAlias returns the alias an embedded field names, or nil.
func embeddedAlias(f *types.Var) *types.Alias {
	if !f.Embedded() {
		return nil
	}
	t := f.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	a, _ := t.(*types.Alias)
	return a
}

// badCallback says why gopy cannot bind a function that takes a Go func whose
// result gopy cannot convert from what the Python callable returns (it writes
// a bare `return`, which does not compile): only numbers but complex ones,
// strings and bools are converted. "" when there is none.
func badCallback(sig *types.Signature) string {
	for i := range sig.Params().Len() {
		cb, ok := types.Unalias(sig.Params().At(i).Type()).Underlying().(*types.Signature)
		if !ok || cb.Results().Len() != 1 {
			continue
		}
		b, ok := types.Unalias(cb.Results().At(0).Type()).Underlying().(*types.Basic)
		if !ok {
			continue // gopy refuses those itself
		}
		switch b.Kind() {
		case types.Complex64, types.Complex128, types.UnsafePointer, types.Uintptr:
			return "its func parameter " + sig.Params().At(i).Name() + " returns " + b.Name() +
				", which gopy cannot convert from Python"
		}
	}
	return ""
}

// predeclared reports whether t (behind any pointer) is a predeclared type,
// which belongs to no package (string, int, error).
func predeclared(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return true
	case *types.Named:
		return t.Obj().Pkg() == nil
	}
	return false
}

// edit is one identifier to rename, or type to spell out, in a source file.
type edit struct {
	offset int
	old    string
	new    string
}

// hideIn writes the overlay under dir and returns the report.
func hideIn(dir string, paths []string) (HideReport, error) {
	report := HideReport{Hidden: []Hidden{}, Renamed: []Hidden{}}
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
	params := h.paramRenames(pkgs)
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
	for obj := range h.why {
		if f, ok := obj.(*types.Var); ok {
			if a := embeddedAlias(f); a != nil {
				newName[obj] = newName[a.Obj()]
			}
		}
	}
	for obj, r := range params {
		newName[obj] = r.to
		report.Renamed = append(report.Renamed, Hidden{Name: r.where + " parameter " + obj.Name(),
			Why: "is " + r.to + " in Python: as written, it would hide a name gopy's Go code uses"})
	}
	sort.Slice(report.Renamed, func(i, j int) bool { return report.Renamed[i].Name < report.Renamed[j].Name })
	// The aliases of the exported API spelled out (unalias.go), then every
	// identifier that declares or uses a hidden object, in every package
	// built, at its place in the file as written (cgo's files map back by
	// their line directives), unless it lies in a type an alias spelled out.
	src := &sources{}
	edits := map[string][]edit{}
	for _, p := range pkgs {
		for file, es := range h.unaliasPackage(p, newName, src) {
			edits[file] = append(edits[file], es...)
		}
	}
	if len(h.why) == 0 && len(params) == 0 && len(edits) == 0 {
		return report, nil
	}
	spelled := func(file string, off int) bool {
		for _, e := range edits[file] {
			if e.offset <= off && off < e.offset+len(e.old) {
				return true
			}
		}
		return false
	}
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
				pos := p.Fset.PositionFor(id.Pos(), true)
				off := src.offset(pos)
				if spelled(pos.Filename, off) {
					continue
				}
				if obj.Pkg() != p.Types {
					// An unexported name cannot be used from another package.
					shared = append(shared, fmt.Sprintf("%s uses %s (%s)", p.PkgPath, qualified(obj), h.why[obj]))
					continue
				}
				edits[pos.Filename] = append(edits[pos.Filename], edit{offset: off, old: id.Name, new: to})
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

// sources are the files the rewrites read, each read once: its text and the
// byte offsets where its lines begin.
type sources struct {
	data   map[string][]byte
	starts map[string][]int
}

func (s *sources) read(file string) []byte {
	if s.data == nil {
		s.data, s.starts = map[string][]byte{}, map[string][]int{}
	}
	if src, ok := s.data[file]; ok {
		return src
	}
	src, _ := os.ReadFile(file) // nil: every offset in it is refused
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	s.data[file], s.starts[file] = src, starts
	return src
}

// offset returns the byte offset of pos (line and byte column, both from 1) in
// its file as written, or -1.
func (s *sources) offset(pos token.Position) int {
	s.read(pos.Filename)
	starts := s.starts[pos.Filename]
	if pos.Line < 1 || pos.Line > len(starts) || pos.Column < 1 {
		return -1
	}
	return starts[pos.Line-1] + pos.Column - 1
}

// span returns the n bytes of file at off.
func (s *sources) span(file string, off, n int) (string, bool) {
	src := s.read(file)
	if off < 0 || n < 0 || off+n > len(src) {
		return "", false
	}
	return string(src[off : off+n]), true
}

// apply makes the edits in src; each must find its old text where the type
// checker saw it.
func apply(src []byte, es []edit) ([]byte, error) {
	sort.SliceStable(es, func(i, j int) bool { return es[i].offset > es[j].offset })
	out := append([]byte(nil), src...)
	var last *edit
	for i := range es {
		e := es[i]
		if last != nil && e == *last {
			continue // the same identifier, seen as a definition and a use
		}
		if e.offset < 0 || e.offset+len(e.old) > len(out) || string(out[e.offset:e.offset+len(e.old)]) != e.old {
			return nil, fmt.Errorf("cannot find %s where the type checker saw it", e.old)
		}
		out = append(out[:e.offset], append([]byte(e.new), out[e.offset+len(e.old):]...)...)
		last = &es[i]
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
