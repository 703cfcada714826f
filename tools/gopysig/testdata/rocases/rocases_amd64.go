package rocases

// AsmRead and AsmStore are assembly (rocases_amd64.s).
func AsmRead(b []byte) uint64

func AsmStore(b []byte)

// AsmReuse, AsmLoopStore, AsmSpill and AsmCall are assembly too: a register
// that held b's address reused for data, a store reached along a loop, an
// address spilled to the stack and loaded back, and a CALL.
func AsmReuse(b []byte, state *uint64)

func AsmLoopStore(b []byte)

func AsmSpill(b []byte)

func AsmCall(b []byte)

func helper()

// AsmMemmoveFrom and AsmMemmoveTo call runtime.memmove from and to b.
func AsmMemmoveFrom(b []byte, out *uint64)

func AsmMemmoveTo(b []byte, in *uint64)
