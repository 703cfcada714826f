package main

// Reading type aliases as the types they name.
//
// gopy knows no types.Alias: a parameter of type `Celsius` (`type Celsius =
// float64`) or `any` reaches its code as an alias, which it cannot convert, and
// it leaves the function out. Go 1.22 and older hid aliases from go/types, and
// the gotypesalias GODEBUG setting kept that behaviour until Go 1.27 removed
// it. So `gopysig -hide` also rewrites, in its overlay copies, every type alias
// in the exported API of the packages built: each type expression that denotes
// an alias is replaced with the type the alias names, written as Go source
// where it stands (`func Warmer(c float64) float64`), and an exported variable
// whose inferred type is an alias is given that type explicitly. The rewritten
// declarations have the very types the originals have; only their spelling
// changes. What the writer cannot spell in that file (an unexported name of
// another package, a predeclared name the package redeclares) keeps its alias,
// and gopy leaves the declaration out as before.

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// unaliasPackage returns the edits that spell out the aliases in the exported
// declarations of p: hidden declarations are left as they are, and so are
// embedded fields (whose names an alias gives), receivers and type parameter
// lists. newName holds the overlay's names of hidden objects, which the
// written types use.
func (h *hider) unaliasPackage(p *packages.Package, newName map[types.Object]string, src *sources) map[string][]edit {
	taken := map[string]bool{}
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				taken[id.Name] = true
			}
			return true
		})
	}
	for _, n := range newName {
		taken[n] = true
	}
	out := map[string][]edit{}
	for _, f := range p.Syntax {
		u := &unaliaser{h: h, p: p, f: f, newName: newName, src: src, taken: taken}
		if file, es := u.run(); len(es) > 0 {
			out[file] = append(out[file], es...)
		}
	}
	return out
}

// unaliaser rewrites the aliases of one file.
type unaliaser struct {
	h       *hider
	p       *packages.Package
	f       *ast.File
	newName map[types.Object]string
	src     *sources
	taken   map[string]bool // identifiers a new import name must avoid

	file    string         // the file as written
	edits   []edit         // the rewrites, in the file as written
	spans   [][2]token.Pos // what they replace, in the type checker's positions
	imports map[string]*fileImport
	added   []*fileImport // imports the rewrites need that the file lacks
	pending []*fileImport // the imports the text being written names
}

// fileImport is a package the file imports, or that a rewrite needs.
type fileImport struct {
	path  string
	name  string          // the file's name for it; "" for a dot import
	spec  *ast.ImportSpec // nil for an added import
	used  bool            // by a rewrite
	added bool            // imported for the rewrites
}

// run finds the rewrites of the file; it returns the file's name as written
// and the edits, none if there is nothing to rewrite or the file cannot be
// mapped back to what was written.
func (u *unaliaser) run() (string, []edit) {
	u.file = u.p.Fset.PositionFor(u.f.Package, true).Filename
	if !contains(u.p.GoFiles, u.file) {
		return "", nil // written by cgo, not by the package's author
	}
	u.imports = map[string]*fileImport{}
	for _, spec := range u.f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || path == "C" {
			continue
		}
		pn := u.pkgName(spec)
		if pn == nil || pn.Name() == "_" {
			continue
		}
		name := pn.Name()
		if name == "." {
			name = ""
		}
		if fi := u.imports[path]; fi == nil || fi.name == "" {
			u.imports[path] = &fileImport{path: path, name: name, spec: spec} // a name over a dot
		}
	}
	for _, decl := range u.f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if u.bound(u.p.TypesInfo.Defs[d.Name]) && u.boundReceiver(d) {
				u.fieldList(d.Type.Params)
				u.fieldList(d.Type.Results)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if u.bound(u.p.TypesInfo.Defs[s.Name]) {
						u.expr(s.Type, nil)
					}
				case *ast.ValueSpec:
					u.valueSpec(s)
				}
			}
		}
	}
	if len(u.edits) == 0 {
		return u.file, nil
	}
	u.fixImports()
	return u.file, u.edits
}

// pkgName is the package an import declares in the file.
func (u *unaliaser) pkgName(spec *ast.ImportSpec) *types.PkgName {
	var obj types.Object
	if spec.Name != nil {
		obj = u.p.TypesInfo.Defs[spec.Name]
	} else {
		obj = u.p.TypesInfo.Implicits[spec]
	}
	pn, _ := obj.(*types.PkgName)
	return pn
}

// bound reports whether gopy may see obj: exported and not hidden.
func (u *unaliaser) bound(obj types.Object) bool {
	if obj == nil || !obj.Exported() {
		return false
	}
	_, hidden := u.h.why[obj]
	return !hidden
}

// boundReceiver reports whether a function is no method, or one of an
// exported type that is not hidden.
func (u *unaliaser) boundReceiver(d *ast.FuncDecl) bool {
	if d.Recv == nil {
		return true
	}
	fn, ok := u.p.TypesInfo.Defs[d.Name].(*types.Func)
	if !ok {
		return false
	}
	t := types.Unalias(fn.Type().(*types.Signature).Recv().Type())
	if ptr, ok := t.(*types.Pointer); ok {
		t = types.Unalias(ptr.Elem())
	}
	named, ok := t.(*types.Named)
	return ok && u.bound(named.Obj())
}

func (u *unaliaser) fieldList(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, field := range fl.List {
		u.expr(field.Type, nil)
	}
}

// valueSpec rewrites an exported variable's or constant's type, or, where it
// has none written and the type its value gives it mentions an alias, writes
// it.
func (u *unaliaser) valueSpec(s *ast.ValueSpec) {
	exported := false
	for _, n := range s.Names {
		exported = exported || u.bound(u.p.TypesInfo.Defs[n])
	}
	if !exported {
		return
	}
	if s.Type != nil {
		u.expr(s.Type, nil)
		return
	}
	if len(s.Values) == 0 {
		return // a constant that repeats the spec above it: so does its type
	}
	var t types.Type
	for _, n := range s.Names {
		obj := u.p.TypesInfo.Defs[n]
		if obj == nil {
			return
		}
		if t != nil && !types.Identical(t, obj.Type()) {
			return
		}
		t = obj.Type()
	}
	if t == nil || !hasAlias(t, map[types.Type]bool{}) {
		return
	}
	last := s.Names[len(s.Names)-1]
	if text, ok := u.write(t); ok {
		u.replace(last.End(), last.End(), " "+text)
	}
}

// expr rewrites the aliases in the type expression e, whose parent is parent
// (nil at the top of a declaration).
func (u *unaliaser) expr(e ast.Expr, parent ast.Node) {
	switch x := e.(type) {
	case nil:
		return
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		if t := u.aliasAt(x); t != nil {
			text, ok := u.write(t)
			if !ok {
				return
			}
			if _, inChan := parent.(*ast.ChanType); inChan && strings.HasPrefix(text, "<-") {
				text = "(" + text + ")" // `chan (<-chan T)`, not `chan<- chan T`
			}
			u.replace(x.Pos(), x.End(), text)
			return
		}
		switch x := x.(type) {
		case *ast.IndexExpr: // an instance of a generic type: its arguments
			u.expr(x.Index, x)
		case *ast.IndexListExpr:
			for _, ix := range x.Indices {
				u.expr(ix, x)
			}
		}
	case *ast.ParenExpr:
		u.expr(x.X, x)
	case *ast.StarExpr:
		u.expr(x.X, x)
	case *ast.ArrayType:
		u.expr(x.Elt, x)
	case *ast.MapType:
		u.expr(x.Key, x)
		u.expr(x.Value, x)
	case *ast.ChanType:
		u.expr(x.Value, x)
	case *ast.Ellipsis:
		u.expr(x.Elt, x)
	case *ast.FuncType:
		u.fieldList(x.Params)
		u.fieldList(x.Results)
	case *ast.StructType:
		for _, field := range x.Fields.List {
			if len(field.Names) == 0 {
				continue // embedded: the alias names the field
			}
			hidden := false
			for _, n := range field.Names {
				_, h := u.h.why[u.p.TypesInfo.Defs[n]]
				hidden = hidden || h
			}
			if !hidden {
				u.expr(field.Type, x)
			}
		}
	case *ast.InterfaceType:
		for _, m := range x.Methods.List {
			if len(m.Names) > 0 { // methods; embedded elements stay
				u.expr(m.Type, x)
			}
		}
	}
}

// aliasAt returns the type an alias used at e stands for (an instance of a
// generic alias with its arguments), or nil when e names no alias.
func (u *unaliaser) aliasAt(e ast.Expr) types.Type {
	var id *ast.Ident
	switch x := e.(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	case *ast.IndexExpr:
		return u.instanceAt(e, x.X)
	case *ast.IndexListExpr:
		return u.instanceAt(e, x.X)
	}
	tn, ok := u.p.TypesInfo.Uses[id].(*types.TypeName)
	if !ok || !tn.IsAlias() {
		return nil
	}
	if tv, ok := u.p.TypesInfo.Types[e]; ok && tv.IsType() {
		return tv.Type
	}
	return tn.Type()
}

func (u *unaliaser) instanceAt(e, base ast.Expr) types.Type {
	if u.aliasAt(base) == nil {
		return nil
	}
	if tv, ok := u.p.TypesInfo.Types[e]; ok && tv.IsType() {
		return tv.Type
	}
	return nil
}

// replace records the rewrite of the source between from and to (type
// checker positions) as text, if that source is in the file as written.
func (u *unaliaser) replace(from, to token.Pos, text string) {
	start := u.p.Fset.PositionFor(from, true)
	if start.Filename != u.file {
		return
	}
	off := u.src.offset(start)
	n := int(to - from)
	old, ok := u.src.span(u.file, off, n)
	compiled := u.p.Fset.PositionFor(from, false)
	if compiled.Filename != u.file { // cgo's copy: the text must be the author's
		seen, ok2 := u.src.span(compiled.Filename, compiled.Offset, n)
		ok = ok && ok2 && seen == old
	}
	if !ok {
		return
	}
	for _, fi := range u.pending {
		if fi.added && !fi.used {
			u.imports[fi.path] = fi
			u.added = append(u.added, fi)
		}
		fi.used = true
	}
	u.pending = nil
	u.edits = append(u.edits, edit{offset: off, old: old, new: text})
	u.spans = append(u.spans, [2]token.Pos{from, to})
}

// write spells t in the file, every alias in it as the type it names. It
// reports false when t names something the file cannot: then the alias stays.
func (u *unaliaser) write(t types.Type) (string, bool) {
	u.pending = nil
	w := &typeWriter{u: u}
	w.typ(t)
	if !w.ok() {
		u.pending = nil
		return "", false
	}
	return w.b.String(), true
}

// fixImports adds the imports the rewrites need, and blanks an import whose
// only uses were rewritten away (as `_ "path"`: its init still runs).
func (u *unaliaser) fixImports() {
	used := map[*types.PkgName]bool{}
	dotUsed := map[*types.Package]bool{}
	for id, obj := range u.p.TypesInfo.Uses {
		if u.p.Fset.File(id.Pos()) != u.p.Fset.File(u.f.Pos()) || u.rewritten(id.Pos()) {
			continue
		}
		if pn, ok := obj.(*types.PkgName); ok {
			used[pn] = true
		} else if obj.Pkg() != nil && obj.Pkg() != u.p.Types && obj.Parent() == obj.Pkg().Scope() {
			dotUsed[obj.Pkg()] = true
		}
	}
	for _, spec := range u.f.Imports {
		pn := u.pkgName(spec)
		if pn == nil || pn.Name() == "_" {
			continue
		}
		if fi := u.imports[pn.Imported().Path()]; fi != nil && fi.spec == spec && fi.used {
			continue
		}
		if (pn.Name() == "." && dotUsed[pn.Imported()]) || (pn.Name() != "." && used[pn]) {
			continue
		}
		if spec.Name != nil {
			u.replace(spec.Name.Pos(), spec.Name.End(), "_")
		} else {
			u.replace(spec.Path.Pos(), spec.Path.Pos(), "_ ")
		}
	}
	if len(u.added) == 0 {
		return
	}
	sort.Slice(u.added, func(i, j int) bool { return u.added[i].path < u.added[j].path })
	var specs []string
	for _, fi := range u.added {
		specs = append(specs, fi.name+" "+strconv.Quote(fi.path))
	}
	// After the package clause, on its line: no line moves, and a cgo preamble
	// still stands right above its `import "C"`.
	u.replace(u.f.Name.End(), u.f.Name.End(), "; import ("+strings.Join(specs, "; ")+")")
}

// rewritten reports whether pos lies in a rewritten type expression.
func (u *unaliaser) rewritten(pos token.Pos) bool {
	for _, s := range u.spans {
		if s[0] <= pos && pos < s[1] {
			return true
		}
	}
	return false
}

// qualifier returns the file's name for package pkg, importing it when the
// file does not; false when the file's package may not import it.
func (u *unaliaser) qualifier(pkg *types.Package) (string, bool) {
	if pkg == u.p.Types {
		return "", true
	}
	fi := u.imports[pkg.Path()]
	for _, p := range u.pending {
		if p.path == pkg.Path() {
			fi = p
		}
	}
	if fi == nil {
		if !importable(u.p.PkgPath, pkg.Path()) {
			return "", false
		}
		name := pkg.Name() + "_"
		for u.taken[name] {
			name += "_"
		}
		u.taken[name] = true
		fi = &fileImport{path: pkg.Path(), name: name, added: true}
	}
	u.pending = append(u.pending, fi)
	return fi.name, true
}

// importable reports whether package importer may import path (Go's rule for
// internal directories).
func importable(importer, path string) bool {
	elems := strings.Split(path, "/")
	for i := len(elems) - 1; i >= 0; i-- {
		if elems[i] != "internal" {
			continue
		}
		parent := strings.Join(elems[:i], "/")
		if parent == "" {
			return !strings.Contains(strings.Split(importer, "/")[0], ".") // the standard library's
		}
		return importer == parent || strings.HasPrefix(importer, parent+"/")
	}
	return true
}

// hasAlias reports whether t mentions an alias anywhere.
func hasAlias(t types.Type, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Alias:
		return true
	case *types.Pointer:
		return hasAlias(t.Elem(), seen)
	case *types.Slice:
		return hasAlias(t.Elem(), seen)
	case *types.Array:
		return hasAlias(t.Elem(), seen)
	case *types.Chan:
		return hasAlias(t.Elem(), seen)
	case *types.Map:
		return hasAlias(t.Key(), seen) || hasAlias(t.Elem(), seen)
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tup.Len() {
				if hasAlias(tup.At(i).Type(), seen) {
					return true
				}
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if hasAlias(t.Field(i).Type(), seen) {
				return true
			}
		}
	case *types.Named:
		for i := range t.TypeArgs().Len() {
			if hasAlias(t.TypeArgs().At(i), seen) {
				return true
			}
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
