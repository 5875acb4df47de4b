module example.com/pyagent

go 1.25.0

require github.com/acpsnap/acpsnap v0.0.0

require (
	github.com/coder/acp-go-sdk v0.13.0 // indirect
	github.com/creack/pty v1.1.24 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace github.com/acpsnap/acpsnap => ../..
