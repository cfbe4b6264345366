package noreplace

// sysRenameat2 is renameat2's number on linux/ppc64, which the syscall package lacks.
const sysRenameat2 = 357
