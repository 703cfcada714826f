package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
)

// The assembly a function without a Go body has, in its package's .s files
// for the target architecture (go list's SFiles), read for the two analyses.
//
// The read-only analysis follows, along the function's control flow (its
// labels and branches, to a fixed point), which registers hold an address
// into the parameter's memory. A register loaded from the parameter's
// argument slot (name+off(FP), or name_base+off(FP) for a slice) holds one,
// and so does every register an instruction computes from one (ADDQ SI, DX;
// LEAQ 8(SI), DI), but not the difference of two (SUBQ SI, DX where both
// hold one: an offset). A value loaded from memory is data, not such an address,
// except from a frame slot one was written to (MOVQ SI, 8(SP), followed as a
// register is, where the function takes no slot's address). Where one is
// written to other memory, every load may bring it back: a store found only
// so makes the parameter inconclusive. A plain move, LEA or zero-extending load into
// a general register replaces what that register held. An instruction whose
// destination (its last operand, in Go's assembler) is memory addressed
// through such a register is a store. A CALL makes the parameter
// inconclusive and the function possibly blocking; so does a SYSCALL, a tail
// jump to another function, and a macro while any register holds such an
// address. This is a conservative reading of the instructions: it knows
// which operand is written and which instructions only move, not what each
// opcode computes.

// asmFunc is one TEXT block: its instructions, as opcode and operands.
type asmFunc struct {
	file    string
	instr   [][]string     // opcode, operands...
	labels  map[string]int // label: the index of the instruction after it
	escapes int            // frameEscapes: 0 not yet known, 1 no, 2 yes
}

type asmIndex struct {
	funcs map[string]*asmFunc // by "pkgpath.name"
}

var asmBlockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)

var asmText = regexp.MustCompile(`^TEXT\s+([\w./]*)·(\w+)(?:<[^>]*>)?\(SB\)`)

// newAsmIndex reads the .s files of every package loaded.
func newAsmIndex(pkgs []*packages.Package) *asmIndex {
	ix := &asmIndex{funcs: map[string]*asmFunc{}}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, f := range p.OtherFiles {
			if strings.HasSuffix(f, ".s") {
				ix.read(p.PkgPath, f)
			}
		}
	})
	return ix
}

func (ix *asmIndex) read(pkgPath, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	var cur *asmFunc
	text := asmBlockComment.ReplaceAllString(string(data), " ")
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if m := asmText.FindStringSubmatch(line); m != nil {
			path := pkgPath
			if m[1] != "" {
				path = m[1]
			}
			cur = &asmFunc{file: file, labels: map[string]int{}}
			ix.funcs[path+"."+m[2]] = cur
			continue
		}
		if cur == nil || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, stmt := range strings.Split(line, ";") {
			stmt = strings.TrimSpace(stmt)
			if i := strings.Index(stmt, ":"); i >= 0 && !strings.ContainsAny(stmt[:i], " \t,(") {
				cur.labels[stmt[:i]] = len(cur.instr)
				stmt = strings.TrimSpace(stmt[i+1:]) // a label
			}
			if stmt == "" {
				continue
			}
			op, rest := stmt, ""
			if j := strings.IndexAny(stmt, " \t"); j >= 0 {
				op, rest = stmt[:j], stmt[j+1:]
			}
			ins := []string{strings.ToUpper(op)}
			for _, a := range strings.Split(rest, ",") {
				if a = strings.TrimSpace(a); a != "" {
					ins = append(ins, a)
				}
			}
			cur.instr = append(cur.instr, ins)
		}
	}
}

var asmReg = regexp.MustCompile(`\b(R\d+|[A-D]X|SI|DI|BP|SP|[XYZKV]\d+|F\d+)\b`)

var asmGPR = regexp.MustCompile(`^(R\d+|[A-D]X|SI|DI|BP)$`)

// asmMoves are the instructions that replace all of a general register's
// value with their source's (amd64, arm64): a move, an address computation, a
// zero- or sign-extending load.
var asmMoves = map[string]bool{
	"MOVQ": true, "MOVL": true, "LEAQ": true, "LEAL": true, "POPQ": true,
	"MOVBLZX": true, "MOVWLZX": true, "MOVBQZX": true, "MOVWQZX": true, "MOVLQZX": true,
	"MOVBLSX": true, "MOVWLSX": true, "MOVBQSX": true, "MOVWQSX": true, "MOVLQSX": true,
	"MOVD": true, "MOVW": true, "MOVWU": true, "MOVH": true, "MOVHU": true, "MOVB": true, "MOVBU": true,
}

// asmReg names a register for the analysis: X5, Y5 and Z5 are one.
func asmRegName(r string) string {
	if len(r) > 1 && (r[0] == 'Y' || r[0] == 'Z') && r[1] >= '0' && r[1] <= '9' {
		return "X" + r[1:]
	}
	return r
}

// asmTaint is the set of registers that may hold an address into the parameter.
type asmTaint map[string]bool

func (t asmTaint) union(u asmTaint) bool {
	grew := false
	for r := range u {
		if !t[r] {
			t[r], grew = true, true
		}
	}
	return grew
}

var asmFrameSlot = regexp.MustCompile(`^(?:[\w.]+[+-])?-?\d*\((SP|FP)\)$`)

// frameSlot is the analysis's name for a memory operand that is a slot of
// the frame (8(SP), x-8(SP), ret+24(FP)): one followed as a register is,
// where the function never takes a frame slot's address.
func (af *asmFunc) frameSlot(operand string) (string, bool) {
	if !asmFrameSlot.MatchString(operand) || af.frameEscapes() {
		return "", false
	}
	if operand[0] == '(' {
		operand = "0" + operand // (SP) is 0(SP)
	}
	return "mem:" + operand, true
}

// frameEscapes reports whether af computes an address in its frame (LEAQ
// 8(SP), AX) or indexes it, so that a slot may be reached by another name.
func (af *asmFunc) frameEscapes() bool {
	if af.escapes == 0 {
		af.escapes = 1
		for _, ins := range af.instr {
			for _, a := range ins[1:] {
				if (strings.HasPrefix(ins[0], "LEA") && strings.Contains(a, "(SP)")) ||
					strings.Contains(a, "(SP)(") || strings.Contains(a, "(FP)(") ||
					(strings.HasPrefix(ins[0], "LEA") && strings.Contains(a, "(FP)")) {
					af.escapes = 2
				}
			}
		}
	}
	return af.escapes == 2
}

// branch is the instruction's target, where its last operand is a label of af.
func (af *asmFunc) branch(ins []string) (int, bool) {
	if len(ins) < 2 {
		return 0, false
	}
	at, ok := af.labels[ins[len(ins)-1]]
	return at, ok
}

// readOnly is the outcome for parameter name of fn's assembly: roProven,
// roStore (where) or roInconclusive (why).
func (ix *asmIndex) readOnly(fn *ssa.Function, name string) (string, string) {
	af := ix.lookup(fn)
	if af == nil {
		return roInconclusive, fmt.Sprintf("%s, which has no Go body and no assembly found", fn.Name())
	}
	slot := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `(_base)?\+\d+\(FP\)`)
	outcome, why, spilled := af.flow(fn.Name(), slot, false)
	if outcome == roStore {
		return outcome, why
	}
	if spilled { // an address went to memory: every load may bring it back
		if o, w, _ := af.flow(fn.Name(), slot, true); o != roProven {
			// a store through a value loaded from memory: may be one, may not
			return roInconclusive, fmt.Sprintf("an address into it spilled to memory that the analysis "+
				"does not follow in %s (%s; %s)", fn.Name(), shortFile(af.file), w)
		}
	}
	for _, ins := range af.instr { // no store found here, but a callee may make one
		switch op := ins[0]; {
		case op == "CALL" && len(ins) == 2 && ins[1] == "runtime·memmove(SB)" && !af.frameEscapes():
			// followed by step
		case op == "CALL" || op == "SYSCALL" || op == "BL" || op == "SVC":
			return roInconclusive, fmt.Sprintf("a CALL in %s (%s)", fn.Name(), shortFile(af.file))
		case (op == "JMP" || op == "B") && len(ins) == 2 && strings.HasSuffix(ins[1], "(SB)"):
			return roInconclusive, fmt.Sprintf("a tail jump in %s (%s)", fn.Name(), shortFile(af.file))
		}
	}
	return outcome, why
}

// flow runs the analysis to a fixed point over af's control flow. loads: a
// value loaded from memory may be an address into the parameter. spilled
// reports a register that may hold one written to memory.
func (af *asmFunc) flow(fn string, slot *regexp.Regexp, loads bool) (outcome, why string, spilled bool) {
	in := make([]asmTaint, len(af.instr)+1)
	in[0] = asmTaint{}
	work := []int{0}
	queued := map[int]bool{0: true}
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		queued[i] = false
		if i >= len(af.instr) {
			continue
		}
		ins, out := af.instr[i], asmTaint{}
		out.union(in[i])
		if o, w, s := af.step(fn, ins, out, slot, loads); o != "" {
			return o, w, spilled
		} else if s {
			spilled = true
		}
		var next []int
		target, isBranch := af.branch(ins)
		if isBranch {
			next = append(next, target)
		}
		if op := ins[0]; !(isBranch && (op == "JMP" || op == "B")) && op != "RET" && op != "JMP" && op != "B" {
			next = append(next, i+1)
		}
		for _, n := range next {
			if in[n] == nil {
				in[n] = asmTaint{}
			} else if !in[n].union(out) {
				continue
			}
			in[n].union(out)
			if !queued[n] {
				queued[n] = true
				work = append(work, n)
			}
		}
	}
	return roProven, "", spilled
}

// step applies one instruction to t, the registers that may hold an address
// into the parameter: a non-empty outcome where it is a store (or a macro
// that may be one); spill where it writes such a register to memory.
func (af *asmFunc) step(fn string, ins []string, t asmTaint, slot *regexp.Regexp, loads bool) (string, string, bool) {
	op := ins[0]
	if _, isBranch := af.branch(ins); isBranch || len(ins) < 2 || strings.HasPrefix(op, "CMP") ||
		strings.HasPrefix(op, "TEST") || strings.HasPrefix(op, "PREFETCH") || strings.HasPrefix(op, "BT") ||
		strings.HasPrefix(op, "VPTEST") || strings.HasPrefix(op, "PTEST") || strings.HasPrefix(op, "UCOMIS") ||
		strings.HasPrefix(op, "COMIS") || strings.HasPrefix(op, "J") {
		return "", "", false
	}
	if strings.Contains(op, "(") { // a macro: its body is not read
		if len(t) > 0 || loads {
			return roInconclusive, fmt.Sprintf("a macro in %s (%s: %s)", fn, shortFile(af.file), op), false
		}
		return "", "", false
	}
	dst := ins[len(ins)-1]
	srcs := ins[1 : len(ins)-1]
	if len(ins) == 2 {
		srcs = ins[1:] // one operand: read and written (INCQ AX, NEGQ (DI))
	}
	if op == "CALL" && len(ins) == 2 && ins[1] == "runtime·memmove(SB)" && !af.frameEscapes() {
		// memmove(to, from, n), its arguments on the stack (ABI0): it writes to's memory only
		if t["mem:0(SP)"] {
			return roStore, fmt.Sprintf("a memmove into it in %s (%s)", fn, shortFile(af.file)), false
		}
		return "", "", false
	}
	tainted := false
	for _, src := range srcs {
		if slot.MatchString(src) {
			tainted = true
			continue
		}
		if strings.Contains(src, "(") && !strings.HasPrefix(op, "LEA") {
			// a load: data, not an address (its address registers are not its
			// value), unless an address was written to that frame slot, or
			// spilled where loads cannot tell
			if key, ok := af.frameSlot(src); ok {
				tainted = tainted || t[key]
			} else {
				tainted = tainted || loads
			}
			continue
		}
		for _, r := range asmReg.FindAllString(src, -1) {
			tainted = tainted || t[asmRegName(r)]
		}
	}
	if i := strings.Index(dst, "("); i >= 0 { // memory: a store through its registers?
		for _, r := range asmReg.FindAllString(dst[i:], -1) {
			if t[asmRegName(r)] {
				return roStore, fmt.Sprintf("a store in %s (%s: %s)", fn, shortFile(af.file), strings.Join(ins, " ")), false
			}
		}
		if key, ok := af.frameSlot(dst); ok { // a frame slot: followed as a register is
			if tainted {
				t[key] = true
			} else if asmMoves[op] && len(ins) == 3 {
				delete(t, key)
			}
			return "", "", false
		}
		return "", "", tainted
	}
	regs := asmReg.FindAllString(dst, -1)
	if len(regs) == 1 && asmGPR.MatchString(regs[0]) && regs[0] == dst {
		same := len(ins) == 3 && ins[1] == dst
		switch {
		case asmMoves[op] && len(ins) == 3: // replaced
			if tainted {
				t[dst] = true
			} else {
				delete(t, dst)
			}
			return "", "", false
		case same && (strings.HasPrefix(op, "XOR") || strings.HasPrefix(op, "SUB")):
			delete(t, dst) // XORL AX, AX: zero
			return "", "", false
		case strings.HasPrefix(op, "SUB") && len(ins) == 3 && tainted && t[dst]:
			delete(t, dst) // two addresses into the memory: their difference is an offset
			return "", "", false
		}
	}
	if tainted {
		for _, r := range regs {
			t[asmRegName(r)] = true
		}
	}
	return "", "", false
}

// blocks says why fn's assembly may block ("" where it has no CALL or
// SYSCALL).
func (ix *asmIndex) blocks(fn *ssa.Function) string {
	af := ix.lookup(fn)
	if af == nil {
		return fmt.Sprintf("it calls %s, which has no Go body and no assembly found", fn.String())
	}
	for _, ins := range af.instr {
		if ins[0] == "CALL" || ins[0] == "SYSCALL" || ins[0] == "BL" || ins[0] == "SVC" {
			return fmt.Sprintf("%s in %s's assembly (%s)", ins[0], fn.String(), shortFile(af.file))
		}
	}
	return ""
}

func (ix *asmIndex) lookup(fn *ssa.Function) *asmFunc {
	if ix == nil || fn.Pkg == nil {
		return nil
	}
	return ix.funcs[fn.Pkg.Pkg.Path()+"."+fn.Name()]
}
