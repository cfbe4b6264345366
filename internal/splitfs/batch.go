package splitfs

import "github.com/spf13/afero"

// Batch opens a batch on each side whose filesystem keeps one (see the package function
// Batch) and returns the function that ends them.
func (s *FS) Batch() (end func()) {
	in, out := Batch(s.inside), Batch(s.outside)
	return func() { in(); out() }
}

// Batch opens a batch on fsys when it keeps one (fs/rootfs keeps each directory it works
// in open and works relative to it; see its Fs.Batch for when it checks a kept directory
// again) and returns the function that ends it.
func Batch(fsys afero.Fs) (end func()) {
	if b, ok := fsys.(interface{ Batch() (end func()) }); ok {
		return b.Batch()
	}
	return func() {}
}
