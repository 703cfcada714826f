package rocases

// AsmRead and AsmStore are assembly (rocases_amd64.s).
func AsmRead(b []byte) uint64

func AsmStore(b []byte)
