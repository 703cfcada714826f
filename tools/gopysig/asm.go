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
// for the target architecture (go list's SFiles), read for the two analyses:
// the registers loaded from a parameter's argument slot (name+off(FP), or
// name_base+off(FP) for a slice) are tainted, and so is every register an
// instruction computes from a tainted one; an instruction whose destination
// (its last operand, in Go's assembler) is memory addressed through a
// tainted register is a store. A CALL makes the parameter inconclusive and
// the function possibly blocking; so does a SYSCALL. What this reads is a
// conservative approximation of the instructions' meaning: it knows which
// operand is written, not what each opcode does.

// asmFunc is one TEXT block: its instructions, as opcode and operands.
type asmFunc struct {
	file  string
	instr [][]string // opcode, operands...
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
			cur = &asmFunc{file: file}
			ix.funcs[path+"."+m[2]] = cur
			continue
		}
		if cur == nil || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, stmt := range strings.Split(line, ";") {
			stmt = strings.TrimSpace(stmt)
			if i := strings.Index(stmt, ":"); i >= 0 && !strings.ContainsAny(stmt[:i], " \t,(") {
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

// readOnly is the outcome for parameter name of fn's assembly: roProven,
// roStore (where) or roInconclusive (why).
func (ix *asmIndex) readOnly(fn *ssa.Function, name string) (string, string) {
	af := ix.lookup(fn)
	if af == nil {
		return roInconclusive, fmt.Sprintf("%s, which has no Go body and no assembly found", fn.Name())
	}
	slot := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `(_base)?\+\d+\(FP\)`)
	tainted := map[string]bool{}
	for range 2 { // twice: a loop may use a register before the instruction that taints it
		for _, ins := range af.instr {
			op := ins[0]
			if op == "CALL" || op == "SYSCALL" || op == "BL" {
				return roInconclusive, fmt.Sprintf("a CALL in %s (%s)", fn.Name(), shortFile(af.file))
			}
			if len(ins) < 2 || strings.HasPrefix(op, "J") || strings.HasPrefix(op, "CMP") ||
				strings.HasPrefix(op, "TEST") || strings.HasPrefix(op, "PREFETCH") || strings.HasPrefix(op, "BT") ||
				strings.HasPrefix(op, "VPTEST") || strings.HasPrefix(op, "PTEST") || strings.HasPrefix(op, "UCOMIS") ||
				strings.HasPrefix(op, "COMIS") {
				continue
			}
			dst := ins[len(ins)-1]
			src := strings.Join(ins[1:len(ins)-1], ",")
			if len(ins) == 2 {
				src = dst // one operand: read and written (INCQ AX, NEGQ (DI))
			}
			srcTainted := slot.MatchString(src)
			for _, r := range asmReg.FindAllString(src, -1) {
				srcTainted = srcTainted || tainted[r]
			}
			if i := strings.Index(dst, "("); i >= 0 { // memory: a store through its registers?
				for _, r := range asmReg.FindAllString(dst[i:], -1) {
					if tainted[r] {
						return roStore, fmt.Sprintf("a store in %s (%s: %s)", fn.Name(), shortFile(af.file),
							strings.Join(ins, " "))
					}
				}
				continue
			}
			if srcTainted {
				for _, r := range asmReg.FindAllString(dst, -1) {
					tainted[r] = true
				}
			}
		}
	}
	return roProven, ""
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
