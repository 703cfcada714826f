package memview

import (
	"fmt"
	"os"
	"syscall"
)

// addressSpaceReserve is the room a process under an address-space limit
// (RLIMIT_AS, `ulimit -v`) must keep after a mapping of memview's: the Go
// runtime grows its heap 64 MiB at a time and dies with a fatal error when it
// cannot, and a new thread needs its stack mapped. memview refuses a mapping
// that would leave less (ErrNoMemory, a MemoryError in Python), so that
// running out of memory is an error the caller sees and the process stays
// usable. Under a small limit the reserve is a quarter of it.
const addressSpaceReserve = 256 << 20

// CheckAddressSpace returns an error wrapping ErrNoMemory if mapping n more
// bytes would leave less than the reserve (256 MiB, or a quarter of the limit)
// under the process's address-space limit (RLIMIT_AS). Every mapping memview
// makes is checked first; code that makes Go objects in bulk (such as an
// extension making one per Python object) calls it now and then, so that the
// Go heap always has room to grow. Without a limit (the usual case) it costs
// one getrlimit call.
func CheckAddressSpace(n int) error { return checkAddressSpace(n) }

func checkAddressSpace(n int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur >= 1<<62 {
		return nil
	}
	used, ok := addressSpaceUsed()
	if !ok {
		return nil
	}
	reserve := min(uint64(addressSpaceReserve), lim.Cur/4)
	if uint64(n) > lim.Cur || used+uint64(n)+reserve > lim.Cur {
		what := fmt.Sprintf("cannot map %s more: ", sizeText(uint64(n)))
		if n == 0 {
			what = ""
		}
		return fmt.Errorf("%sthe process uses %s of its %s address-space limit (ulimit -v), "+
			"and %s must stay free for Python and the Go runtime: %w", what, sizeText(used), sizeText(lim.Cur),
			sizeText(reserve), ErrNoMemory)
	}
	return nil
}

// addressSpaceUsed returns the process's mapped address space in bytes (the
// first field of /proc/self/statm, in pages), read without allocating.
func addressSpaceUsed() (uint64, bool) {
	fd, err := syscall.Open("/proc/self/statm", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	var buf [128]byte
	n, err := syscall.Read(fd, buf[:])
	_ = syscall.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	var pages uint64
	i := 0
	for ; i < n && buf[i] >= '0' && buf[i] <= '9'; i++ {
		pages = pages*10 + uint64(buf[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	return pages * uint64(os.Getpagesize()), true
}
