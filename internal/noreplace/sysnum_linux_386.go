package noreplace

// sysRenameat2 is renameat2's number on linux/386, which the syscall package lacks.
const sysRenameat2 = 353
