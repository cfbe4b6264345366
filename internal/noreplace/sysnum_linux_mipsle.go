package noreplace

// sysRenameat2 is renameat2's number on linux/mipsle, which the syscall package lacks.
const sysRenameat2 = 4351
