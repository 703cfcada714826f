package cuda

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// A small interpreter of the PTX instructions kernels.ptx uses, so that the
// kernels' text itself — not a Go or C model of it — runs on the CPU in these
// tests: every thread of a launch, one after another (the kernels share no
// memory between threads and have no barriers, so any order is a valid
// schedule). Global memory is host memory here. It knows exactly the forms the
// module uses and fails on anything else, so a new instruction in kernels.ptx
// must be taught here first.

type ptxOperand struct {
	reg  string // register name, "" for an immediate or special
	imm  uint64
	addr bool // [base+off]
	off  int64
}

type ptxInst struct {
	pred  string // "%p1" of "@%p1", "" for none
	op    string // "ld.param.u64", "add.s64", ...
	dst   []string
	args  []ptxOperand
	label string // bra target
}

type ptxFunc struct {
	insts  []ptxInst
	labels map[string]int
}

const ptxParamBase = 1 << 60 // the address "args" stands for

// parsePTX splits the module into entries and parses their instructions.
func parsePTX(t *testing.T, module string) map[string]*ptxFunc {
	t.Helper()
	funcs := map[string]*ptxFunc{}
	var cur *ptxFunc
	for _, raw := range strings.Split(module, "\n") {
		line := raw
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(strings.TrimRight(line, "\x00"))
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, ".visible .entry "):
			name := strings.TrimSuffix(strings.TrimPrefix(line, ".visible .entry "), "(")
			cur = &ptxFunc{labels: map[string]int{}}
			funcs[name] = cur
			continue
		case cur == nil, strings.HasPrefix(line, "."), line == "{", line == "}", line == ")":
			continue
		case strings.HasSuffix(line, ":"):
			cur.labels[strings.TrimSuffix(line, ":")] = len(cur.insts)
			continue
		}
		line = strings.TrimSuffix(line, ";")
		var in ptxInst
		if strings.HasPrefix(line, "@") {
			p, rest, _ := strings.Cut(line, " ")
			in.pred, line = p[1:], rest
		}
		op, rest, _ := strings.Cut(line, " ")
		in.op = op
		if op == "bra" {
			in.label = strings.TrimSpace(rest)
		} else if op != "ret" {
			ops := splitOperands(rest)
			if strings.HasPrefix(op, "st.") {
				in.args = append(in.args, parseOperand(t, ops[0]))
				in.dst = nil
				for _, r := range regList(ops[1]) {
					in.args = append(in.args, ptxOperand{reg: r})
				}
			} else {
				in.dst = regList(ops[0])
				for _, o := range ops[1:] {
					in.args = append(in.args, parseOperand(t, o))
				}
			}
		}
		cur.insts = append(cur.insts, in)
	}
	return funcs
}

// splitOperands splits "a, {b, c}, [d+8]" at top-level commas.
func splitOperands(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func regList(s string) []string {
	s = strings.Trim(s, "{}")
	var out []string
	for _, r := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(r))
	}
	return out
}

func parseOperand(t *testing.T, s string) ptxOperand {
	t.Helper()
	var o ptxOperand
	if strings.HasPrefix(s, "[") {
		o.addr = true
		s = strings.Trim(s, "[]")
		if base, off, ok := strings.Cut(s, "+"); ok {
			v, err := strconv.ParseInt(off, 10, 64)
			if err != nil {
				t.Fatalf("ptx: bad offset in %q", s)
			}
			s, o.off = base, v
		}
	}
	switch {
	case s == "args":
		o.imm = ptxParamBase
	case strings.HasPrefix(s, "%"):
		o.reg = s
	default:
		v, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			t.Fatalf("ptx: bad operand %q", s)
		}
		o.imm = uint64(v)
	}
	return o
}

// runPTX runs every thread of a launch of fn on the argument block.
func runPTX(t *testing.T, fn *ptxFunc, l launch) {
	t.Helper()
	g, b := l.grid, l.block
	for cy := range g[1] {
		for cx := range g[0] {
			for ty := range b[1] {
				for tx := range b[0] {
					special := map[string]uint64{
						"%tid.x": uint64(tx), "%tid.y": uint64(ty), "%tid.z": 0,
						"%ntid.x": uint64(b[0]), "%ntid.y": uint64(b[1]), "%ntid.z": uint64(b[2]),
						"%ctaid.x": uint64(cx), "%ctaid.y": uint64(cy), "%ctaid.z": 0,
						"%nctaid.x": uint64(g[0]), "%nctaid.y": uint64(g[1]), "%nctaid.z": uint64(g[2]),
					}
					runThread(t, fn, &l.args, special)
				}
			}
		}
	}
}

func runThread(t *testing.T, fn *ptxFunc, args *[argsSize]byte, special map[string]uint64) {
	t.Helper()
	regs := map[string]uint64{}
	val := func(o ptxOperand) uint64 {
		if o.reg == "" {
			return o.imm
		}
		if v, ok := special[o.reg]; ok {
			return v
		}
		v, ok := regs[o.reg]
		if !ok {
			t.Fatalf("ptx: read of unset register %s", o.reg)
		}
		return v
	}
	addr := func(o ptxOperand) uint64 { return val(o) + uint64(o.off) }
	param := func(a uint64, n int) []byte {
		off := a - ptxParamBase
		if a < ptxParamBase || off+uint64(n) > argsSize {
			t.Fatalf("ptx: param access at %#x outside the block", a)
		}
		return args[off : off+uint64(n)]
	}
	mem := func(a uint64, n int) []byte {
		return unsafe.Slice((*byte)(addrPointer(uintptr(a))), n)
	}
	le := binary.LittleEndian
	get := func(b []byte) uint64 {
		switch len(b) {
		case 1:
			return uint64(b[0])
		case 2:
			return uint64(le.Uint16(b))
		case 4:
			return uint64(le.Uint32(b))
		}
		return le.Uint64(b)
	}
	put := func(b []byte, v uint64) {
		switch len(b) {
		case 1:
			b[0] = byte(v)
		case 2:
			le.PutUint16(b, uint16(v))
		case 4:
			le.PutUint32(b, uint32(v))
		default:
			le.PutUint64(b, v)
		}
	}
	width := func(op string) int {
		for _, s := range []string{"8", "16", "32", "64"} {
			if strings.HasSuffix(op, "u"+s) || strings.HasSuffix(op, "s"+s) {
				w, _ := strconv.Atoi(s)
				return w / 8
			}
		}
		t.Fatalf("ptx: no width in %q", op)
		return 0
	}
	mask := func(op string, v uint64) uint64 {
		if w := width(op); w < 8 {
			return v & (1<<(8*w) - 1)
		}
		return v
	}
	for pc, steps := 0, 0; ; steps++ {
		if steps > 1<<24 {
			t.Fatalf("ptx: thread does not finish")
		}
		in := fn.insts[pc]
		pc++
		if in.pred != "" && regs[in.pred] == 0 {
			continue
		}
		a := func(i int) uint64 { return val(in.args[i]) }
		set := func(v uint64) { regs[in.dst[0]] = v }
		switch op := in.op; {
		case op == "ret":
			return
		case op == "bra":
			target, ok := fn.labels[in.label]
			if !ok {
				t.Fatalf("ptx: no label %s", in.label)
			}
			pc = target
		case strings.HasPrefix(op, "ld.param.") || strings.HasPrefix(op, "ld.global."):
			w := width(op)
			at := addr(in.args[0])
			for i, r := range in.dst {
				var b []byte
				if strings.HasPrefix(op, "ld.param.") {
					b = param(at+uint64(i*w), w)
				} else {
					b = mem(at+uint64(i*w), w)
				}
				regs[r] = get(b)
			}
		case strings.HasPrefix(op, "st.global."):
			w := width(op)
			at := addr(in.args[0])
			for i, o := range in.args[1:] {
				put(mem(at+uint64(i*w), w), val(o))
			}
		case op == "mov.u64" || op == "mov.u32":
			set(mask(op, a(0)))
		case op == "cvt.u64.u32":
			set(a(0) & 0xffffffff)
		case op == "mul.wide.u32":
			set((a(0) & 0xffffffff) * (a(1) & 0xffffffff))
		case op == "add.u64" || op == "add.s64" || op == "add.u32":
			set(mask(op, a(0)+a(1)))
		case op == "mul.lo.s64":
			set(a(0) * a(1))
		case op == "mad.lo.s64":
			set(a(0)*a(1) + a(2))
		case op == "div.u64":
			set(a(0) / a(1))
		case op == "rem.u64":
			set(a(0) % a(1))
		case strings.HasPrefix(op, "setp."):
			parts := strings.Split(op, ".") // setp.ge.u64
			x, y := mask(op, a(0)), mask(op, a(1))
			var r bool
			switch parts[1] {
			case "ge":
				r = x >= y
			case "gt":
				r = x > y
			case "eq":
				r = x == y
			case "lt":
				r = x < y
			default:
				t.Fatalf("ptx: unknown comparison %s", op)
			}
			regs[in.dst[0]] = map[bool]uint64{false: 0, true: 1}[r]
		default:
			t.Fatalf("ptx: the interpreter does not know %q", fmt.Sprint(op))
		}
	}
}
