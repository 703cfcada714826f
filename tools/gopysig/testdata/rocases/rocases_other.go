//go:build !amd64

package rocases

// AsmRead and AsmStore have Go bodies off amd64.
func AsmRead(b []byte) uint64 { return uint64(b[0]) }

func AsmStore(b []byte) { b[8] = 1 }

// AsmReuse, AsmLoopStore, AsmSpill and AsmCall likewise.
func AsmReuse(b []byte, state *uint64) { *state += uint64(b[0]) }

func AsmLoopStore(b []byte) { b[0] = 1 }

func AsmSpill(b []byte) { b[0] = 1 }

func AsmCall(b []byte) { _ = b }

// AsmMemmoveFrom and AsmMemmoveTo likewise.
func AsmMemmoveFrom(b []byte, out *uint64) { *out = uint64(b[0]) }

func AsmMemmoveTo(b []byte, in *uint64) { b[0] = byte(*in) }
