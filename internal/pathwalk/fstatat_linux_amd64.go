package pathwalk

import "syscall"

// sysFstatat is the fstatat system call whose result is a syscall.Stat_t.
const sysFstatat = syscall.SYS_NEWFSTATAT
