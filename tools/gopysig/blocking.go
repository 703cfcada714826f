package main

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Whether a bound function can block, for the GIL rule of memview's entries
// (gopyfast.py keeps the GIL for a small call that cannot). It walks every
// function the call graph reaches from it and finds what may block or wait:
// a channel send, receive or select, a goroutine started, a call into
// package sync (locks, WaitGroup, Once, Pool), time, os, syscall, net, io's
// pipes or the runtime, a call with no callee found, or of a function with
// no Go body (assembly, which is not read: it counts as blocking). Whatever
// it does not reach it does not judge: the answer is "" only where nothing
// reached may block.

// blockingPackages are the packages a call into which may block or wait.
var blockingPackages = []string{"sync", "time", "os", "syscall", "net", "internal/poll", "runtime", "io",
	"internal/syscall", "os/signal", "context", "log"}

func blockingPackage(path string) bool {
	if path == "sync/atomic" {
		return false
	}
	for _, p := range blockingPackages {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

const maxBlockingWalk = 20000 // functions; past it the answer is "too large to tell"

// blocking says why f may block, or "" where nothing it reaches may.
func (a *roAnalysis) blocking(f *types.Func) string {
	if a == nil {
		return "not analysed"
	}
	root := a.prog.FuncValue(f)
	if root == nil {
		return "not analysed"
	}
	seen := map[*ssa.Function]bool{root: true}
	work := []*ssa.Function{root}
	for len(work) > 0 {
		if len(seen) > maxBlockingWalk {
			return "its call graph is too large to tell"
		}
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		if fn.Pkg != nil && blockingPackage(fn.Pkg.Pkg.Path()) {
			return fmt.Sprintf("it calls %s.%s", fn.Pkg.Pkg.Path(), fn.Name())
		}
		if fn.Blocks == nil {
			if why := a.asm.blocks(fn); why != "" {
				return why
			}
			continue // assembly without CALL or SYSCALL
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch in := instr.(type) {
				case *ssa.Send, *ssa.Select, *ssa.Go:
					return fmt.Sprintf("a channel operation or goroutine in %s", fn.String())
				case *ssa.UnOp:
					if in.Op == token.ARROW {
						return fmt.Sprintf("a channel receive in %s", fn.String())
					}
				case ssa.CallInstruction:
					c := in.Common()
					if _, ok := c.Value.(*ssa.Builtin); ok {
						continue
					}
					var callees []*ssa.Function
					if g := c.StaticCallee(); g != nil {
						callees = []*ssa.Function{g}
					} else if node := a.graph.Nodes[fn]; node != nil {
						for _, e := range node.Out {
							if e.Site == in {
								callees = append(callees, e.Callee.Func)
							}
						}
					}
					if len(callees) == 0 {
						return fmt.Sprintf("a call with no callee found in %s", fn.String())
					}
					for _, g := range callees {
						if !seen[g] {
							seen[g] = true
							work = append(work, g)
						}
					}
				}
			}
		}
	}
	return ""
}
