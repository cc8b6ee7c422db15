module github.com/wasmgate/wasmgate/bench/stock

go 1.26.8

require (
	github.com/mark3labs/mcp-go v1.2.1
	github.com/wasmgate/wasmgate v0.0.0
)

require (
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/spf13/cast v1.10.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/text v0.43.0 // indirect
)

// wasmgate itself from this checkout; mcp-go is deliberately not
// replaced (see main.go).
replace github.com/wasmgate/wasmgate => ../..
