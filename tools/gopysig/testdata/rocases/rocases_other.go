//go:build !amd64

package rocases

// AsmRead and AsmStore have Go bodies off amd64.
func AsmRead(b []byte) uint64 { return uint64(b[0]) }

func AsmStore(b []byte) { b[8] = 1 }
