module github.com/acpsnap/acpsnap

go 1.26.8

require (
	github.com/coder/acp-go-sdk v0.13.0 // indirect
	github.com/creack/pty v1.1.24 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/joho/godotenv v1.5.1 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
