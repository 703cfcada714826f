package main

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// The read-only analysis of slice parameters. For each []T parameter of a
// bound function or method it follows, in the SSA form of the program
// (golang.org/x/tools/go/ssa), every value derived from the parameter:
// slicing, indexing, slice-to-array-pointer conversions, unsafe.Pointer and
// uintptr arithmetic, unsafe.Slice/String/StringData/SliceData/Add, phis,
// the results of append on it, and calls, into every callee the call graph
// (go/callgraph/vta over class-hierarchy analysis) finds, parameter by
// parameter, and into closures that capture it. A store through any such
// value, copy into it, append onto it or clear of it is a store. A load is
// not. What it cannot follow is inconclusive: a value stored into memory,
// sent, put in a map or converted to an interface; a call with no callee
// found, or of a function with no Go body (assembly, linkname); an
// instruction it does not know.
//
// Each parameter gets one of three outcomes (Param.ReadOnly): "proven" (Go
// only reads it: a read-only buffer is taken without a copy), "store" (Go
// may write it: a read-only buffer is refused) and "inconclusive" (a
// read-only buffer is copied for the call). Returns says the function may
// return a value of the parameter's memory (Go's dst[:n]).

// Outcomes of the analysis.
const (
	roProven       = "proven"
	roStore        = "store"
	roInconclusive = "inconclusive"
)

// summary is what a value derived from a parameter may do.
type summary struct {
	store   string // where Go stores through it ("" for nowhere)
	unknown string // why the analysis cannot tell ("" when it can)
	returns bool   // whether the function may return a value derived from it
}

func (s *summary) merge(o summary, returns bool) {
	if s.store == "" {
		s.store = o.store
	}
	if s.unknown == "" {
		s.unknown = o.unknown
	}
	if returns && o.returns {
		s.returns = true
	}
}

func (s summary) outcome() (string, string) {
	switch {
	case s.store != "":
		return roStore, s.store
	case s.unknown != "":
		return roInconclusive, s.unknown
	}
	return roProven, ""
}

type roAnalysis struct {
	prog  *ssa.Program
	graph *callgraph.Graph
	memo  map[ssa.Value]*summary // by parameter or free variable; in progress: the optimistic zero
	cells map[ssa.Value]*summary // free variables that are cells holding a derived value
	asm   *asmIndex              // the assembly of functions without a Go body (asm.go)
}

// newROAnalysis builds the SSA form and the call graph of pkgs (loaded with
// packages.LoadAllSyntax) and everything they import.
func newROAnalysis(pkgs []*packages.Package) *roAnalysis {
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	funcs := ssautil.AllFunctions(prog)
	graph := vta.CallGraph(funcs, cha.CallGraph(prog))
	return &roAnalysis{prog: prog, graph: graph, memo: map[ssa.Value]*summary{}, cells: map[ssa.Value]*summary{},
		asm: newAsmIndex(pkgs)}
}

// params analyses the slice parameters of f: by parameter index (the
// receiver excluded), its outcome, why, and whether f may return its memory.
func (a *roAnalysis) params(f *types.Func) map[int][3]string {
	if a == nil {
		return nil
	}
	fn := a.prog.FuncValue(f)
	if fn == nil {
		return nil
	}
	sig := f.Type().(*types.Signature)
	first := 0
	if sig.Recv() != nil {
		first = 1
	}
	out := map[int][3]string{}
	for i := range sig.Params().Len() {
		if _, ok := sig.Params().At(i).Type().Underlying().(*types.Slice); !ok {
			continue
		}
		if fn.Blocks == nil {
			o, why := a.asm.readOnly(fn, sig.Params().At(i).Name())
			out[i] = [3]string{o, why, ""}
			continue
		}
		s := a.param(fn.Params[first+i])
		o, why := s.outcome()
		ret := ""
		if s.returns {
			ret = "returns"
		}
		out[i] = [3]string{o, why, ret}
	}
	return out
}

// param is the summary of a parameter or free variable v.
func (a *roAnalysis) param(v ssa.Value) summary {
	if s, ok := a.memo[v]; ok {
		return *s // done, or in progress (a recursive call): what is known so far
	}
	s := &summary{}
	a.memo[v] = s
	*s = a.flow(v.Parent(), v, false)
	return *s
}

// cell is the summary of a free variable v of a closure that is a cell (a
// captured variable's Alloc) holding a value derived from the parameter.
func (a *roAnalysis) cell(v ssa.Value) summary {
	if s, ok := a.cells[v]; ok {
		return *s
	}
	s := &summary{}
	a.cells[v] = s
	*s = a.flow(v.Parent(), v, true)
	return *s
}

func pos(fn *ssa.Function, p token.Pos) string {
	if p.IsValid() {
		position := fn.Prog.Fset.Position(p)
		return fmt.Sprintf("%s (%s:%d)", fn.Name(), shortFile(position.Filename), position.Line)
	}
	return fn.Name()
}

func shortFile(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// pointerLike says whether a value of type t can reach the parameter's
// memory (what a load gives can not, for slices of basic types).
func pointerLike(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() == types.UnsafePointer || u.Kind() == types.Uintptr || u.Kind() == types.String
	case *types.Pointer, *types.Slice, *types.Tuple:
		return true
	}
	return false
}

// flow follows the values derived from root within fn. Cells are the
// variables (Allocs) a derived value is stored in: loads from them are
// derived values, stores into them are not stores into the memory.
func (a *roAnalysis) flow(fn *ssa.Function, root ssa.Value, rootCell bool) summary {
	var s summary
	seen := map[ssa.Value]bool{root: true}
	cells := map[ssa.Value]bool{}
	work := []ssa.Value{root}
	add := func(v ssa.Value) {
		if v != nil && !seen[v] {
			seen[v] = true
			work = append(work, v)
		}
	}
	addCell := func(v ssa.Value) {
		if !cells[v] {
			cells[v] = true
			work = append(work, v)
		}
	}
	if rootCell {
		delete(seen, root)
		cells[root] = true
	}
	for len(work) > 0 && s.store == "" {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		refs := v.Referrers()
		if refs == nil {
			continue
		}
		if cells[v] {
			a.cellUses(fn, v, *refs, &s, add, addCell)
			continue
		}
		for _, instr := range *refs {
			switch in := instr.(type) {
			case *ssa.Store:
				if in.Addr == v {
					s.store = "a store in " + pos(fn, in.Pos())
				} else if _, local := in.Addr.(*ssa.Alloc); local {
					addCell(in.Addr) // a variable holding it (captured by a closure, or addressed)
				} else if s.unknown == "" {
					s.unknown = "stored into memory in " + pos(fn, in.Pos())
				}
			case *ssa.IndexAddr, *ssa.Slice, *ssa.FieldAddr, *ssa.SliceToArrayPointer, *ssa.ChangeType,
				*ssa.Phi, *ssa.MultiConvert, *ssa.Extract, *ssa.TypeAssert, *ssa.ChangeInterface:
				add(in.(ssa.Value))
			case *ssa.Convert:
				if pointerLike(in.Type()) && !isString(in.Type()) { // string(b) copies
					add(in)
				}
			case *ssa.UnOp:
				if in.Op != token.MUL && in.Op != token.ARROW && pointerLike(in.Type()) {
					add(in) // uintptr arithmetic
				}
			case *ssa.BinOp:
				if pointerLike(in.Type()) && !isString(in.Type()) {
					add(in)
				}
			case *ssa.Return:
				s.returns = true
			case ssa.CallInstruction:
				a.call(fn, in, v, &s, add)
			case *ssa.MakeClosure:
				c := in.Fn.(*ssa.Function)
				for k, b := range in.Bindings {
					if b == v {
						s.merge(a.param(c.FreeVars[k]), false)
					}
				}
			case *ssa.MakeInterface:
				if s.unknown == "" {
					s.unknown = "converted to an interface in " + pos(fn, in.Pos())
				}
			case *ssa.Field, *ssa.Index:
				if val := in.(ssa.Value); pointerLike(val.Type()) || isStruct(val.Type()) {
					add(val) // a pointer held in a derived struct (a slice header read as one)
				}
			case *ssa.DebugRef, *ssa.If, *ssa.Jump, *ssa.Lookup, *ssa.Range:
			default:
				if s.unknown == "" {
					s.unknown = fmt.Sprintf("%T in %s", instr, pos(fn, instr.Pos()))
				}
			}
		}
	}
	return s
}

// cellUses follows the uses of cell, a variable holding a derived value.
func (a *roAnalysis) cellUses(fn *ssa.Function, cell ssa.Value, refs []ssa.Instruction, s *summary,
	add, addCellOf func(ssa.Value)) {
	for _, instr := range refs {
		switch in := instr.(type) {
		case *ssa.Convert, *ssa.ChangeType, *ssa.FieldAddr, *ssa.IndexAddr:
			// the variable's address as another pointer type, or of a part of it: the same variable
			addCellOf(in.(ssa.Value))
		case *ssa.UnOp:
			if in.Op == token.MUL {
				add(in) // a load of the variable: the derived value (or its header read as a struct)
			} else if s.unknown == "" {
				s.unknown = "a variable holding it used in " + pos(fn, in.Pos())
			}
		case *ssa.Store:
			if in.Addr != cell && s.unknown == "" {
				s.unknown = "the address of a variable holding it stored in " + pos(fn, in.Pos())
			}
		case *ssa.MakeClosure:
			c := in.Fn.(*ssa.Function)
			for k, b := range in.Bindings {
				if b == cell {
					s.merge(a.cell(c.FreeVars[k]), false)
				}
			}
		case *ssa.DebugRef:
		default:
			if s.unknown == "" {
				s.unknown = "a variable holding it used in " + pos(fn, instr.Pos())
			}
		}
	}
}

func isStruct(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// call follows v, a value derived from the parameter, into the call in.
func (a *roAnalysis) call(fn *ssa.Function, in ssa.CallInstruction, v ssa.Value, s *summary, add func(ssa.Value)) {
	c := in.Common()
	if b, ok := c.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "len", "cap", "print", "println", "min", "max":
		case "copy":
			if c.Args[0] == v {
				s.store = "copy into it in " + pos(fn, in.Pos())
			}
		case "append":
			if c.Args[0] == v {
				s.store = "append onto it in " + pos(fn, in.Pos())
			}
		case "clear":
			s.store = "clear in " + pos(fn, in.Pos())
		case "Slice", "String", "StringData", "SliceData", "Add", "ssa:wrapnilchk":
			if val := in.Value(); val != nil {
				add(val)
			}
		default:
			if s.unknown == "" {
				s.unknown = fmt.Sprintf("builtin %s in %s", b.Name(), pos(fn, in.Pos()))
			}
		}
		return
	}
	var callees []*ssa.Function
	if f := c.StaticCallee(); f != nil {
		callees = []*ssa.Function{f}
	} else if node := a.graph.Nodes[fn]; node != nil {
		for _, e := range node.Out {
			if e.Site == in {
				callees = append(callees, e.Callee.Func)
			}
		}
	}
	if c.Value == v && !c.IsInvoke() {
		if s.unknown == "" {
			s.unknown = "called in " + pos(fn, in.Pos())
		}
		return
	}
	if len(callees) == 0 {
		if s.unknown == "" {
			s.unknown = "a call with no callee found in " + pos(fn, in.Pos())
		}
		return
	}
	// the argument positions v is at, as the callee's parameter indices
	var at []int
	shift := 0
	if c.IsInvoke() {
		shift = 1
		if c.Value == v {
			at = append(at, 0)
		}
	}
	for k, arg := range c.Args {
		if arg == v {
			at = append(at, k+shift)
		}
	}
	for _, f := range callees {
		if f.Blocks == nil { // assembly (asm.go)
			for _, k := range at {
				if k >= f.Signature.Params().Len() {
					continue
				}
				switch o, why := a.asm.readOnly(f, f.Signature.Params().At(k).Name()); o {
				case roStore:
					s.store = why + ", called in " + pos(fn, in.Pos())
				case roInconclusive:
					if s.unknown == "" {
						s.unknown = why + ", called in " + pos(fn, in.Pos())
					}
				}
				if res := f.Signature.Results(); res.Len() > 0 && pointerLike(res.At(0).Type()) {
					if val := in.Value(); val != nil {
						add(val) // what it returns may be derived
					}
				}
			}
			continue
		}
		for _, k := range at {
			if k >= len(f.Params) {
				if s.unknown == "" {
					s.unknown = "a call of " + f.Name() + " with other parameters in " + pos(fn, in.Pos())
				}
				continue
			}
			sub := a.param(f.Params[k])
			s.merge(sub, false)
			if sub.returns {
				if val := in.Value(); val != nil {
					add(val)
				}
			}
		}
	}
}
