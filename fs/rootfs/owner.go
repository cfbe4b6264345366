package rootfs

// Chown changes the numeric uid and gid of the open file, like [os.File.Chown].
func (f *File) Chown(uid, gid int) error {
	return f.file.Chown(uid, gid)
}
