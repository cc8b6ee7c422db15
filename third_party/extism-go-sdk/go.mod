module github.com/extism/go-sdk

go 1.22.0

require (
	github.com/dylibso/observe-sdk/go v0.0.0-20240819160327-2d926c5d788a
	github.com/gobwas/glob v0.2.3
	github.com/stretchr/testify v1.9.0
	github.com/tetratelabs/wazero v1.9.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20240805132620-81f5be970eca // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/tetratelabs/wabin v0.0.0-20230304001439-f6f874872834 // indirect
	go.opentelemetry.io/proto/otlp v1.3.1 // indirect
	google.golang.org/protobuf v1.34.2 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
