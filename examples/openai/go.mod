module github.com/applypatch/applypatch/examples/openai

go 1.26.0

replace github.com/applypatch/applypatch => ../..

require (
	github.com/applypatch/applypatch v0.0.0-00010101000000-000000000000
	github.com/google/go-cmp v0.7.0
	github.com/openai/openai-go/v3 v3.100.0
	github.com/spf13/afero v1.15.0
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/text v0.44.0 // indirect
)
