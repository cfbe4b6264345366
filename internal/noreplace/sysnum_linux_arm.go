package noreplace

// sysRenameat2 is renameat2's number on linux/arm, which the syscall package lacks.
const sysRenameat2 = 382
