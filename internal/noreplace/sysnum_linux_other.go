//go:build linux && !(amd64 || 386 || arm || arm64 || loong64 || mips || mipsle || mips64 || mips64le || ppc64 || ppc64le || riscv64 || s390x)

package noreplace

// sysRenameat2 is zero on an architecture whose number is not known here: Renameat
// reports the call unsupported.
const sysRenameat2 = 0
