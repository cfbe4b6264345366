module github.com/applypatch/applypatch

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/afero v1.15.0
	golang.org/x/text v0.44.0
)

require (
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
