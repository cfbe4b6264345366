//go:build linux && (arm64 || loong64 || mips64 || mips64le || riscv64 || s390x)

package noreplace

import "syscall"

// sysRenameat2 is renameat2's number, which the syscall package has on this architecture.
const sysRenameat2 = syscall.SYS_RENAMEAT2
