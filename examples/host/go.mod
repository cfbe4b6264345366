module github.com/applypatch/applypatch/examples/host

go 1.26.0

replace github.com/applypatch/applypatch => ../..

require (
	github.com/applypatch/applypatch v0.0.0-00010101000000-000000000000
	github.com/spf13/afero v1.15.0
)

require golang.org/x/text v0.44.0 // indirect
