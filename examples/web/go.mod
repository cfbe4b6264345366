module github.com/applypatch/applypatch/examples/web

go 1.26.0

replace github.com/applypatch/applypatch => ../..

require (
	github.com/applypatch/applypatch v0.0.0-00010101000000-000000000000
	github.com/chromedp/chromedp v0.23.1
	github.com/spf13/afero v1.15.0
)

require (
	github.com/chromedp/cdproto v0.160.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	golang.org/x/text v0.44.0 // indirect
)
