//go:build wasip1

// Command calculator is a wasmgate example plugin: one tool, calculate,
// that adds, subtracts, multiplies or divides two numbers and writes the
// result as JavaScript's String(n) would ("8", "0.30000000000000004",
// "1e+21", "Infinity").
//
// Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o examples/plugins/calculator.wasm ./examples/plugins/calculator
package main

import (
	"errors"
	"fmt"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
	"github.com/wasmgate/wasmgate/pdk/jsnum"
)

// main is required by the Go toolchain; with -buildmode=c-shared it is
// never called.
func main() {}

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "calculate",
		Description: "Performs basic arithmetic on two numbers: add, subtract, multiply or divide a by b.",
		InputSchema: wasmgate.Schema(`{"type":"object","properties":{"operation":{"type":"string","enum":["add","subtract","multiply","divide"]},"a":{"type":"number"},"b":{"type":"number"}},"required":["operation","a","b"]}`),
	}})
}

//go:wasmexport calculate
func calculate() int32 {
	args, err := wasmgate.Arguments()
	if err != nil {
		return wasmgate.Fail(errors.New("Invalid arguments: expected a JSON object with operation, a and b"))
	}
	r, err := compute(args)
	if err != nil {
		return wasmgate.Fail(err)
	}
	return wasmgate.Text(jsnum.Format(r))
}

const operations = "add, subtract, multiply or divide"

// compute evaluates the calculate tool's arguments. It checks them itself
// rather than trusting the gateway's schema validation.
func compute(args wasmgate.Object) (float64, error) {
	if !args.Has("operation") {
		return 0, errors.New("Missing operation: expected " + operations)
	}
	op, ok := args.String("operation")
	if !ok {
		return 0, errors.New("Invalid operation: expected a string, one of " + operations)
	}
	a, err := operand(args, "a")
	if err != nil {
		return 0, err
	}
	b, err := operand(args, "b")
	if err != nil {
		return 0, err
	}

	switch op {
	case "add":
		return a + b, nil
	case "subtract":
		return a - b, nil
	case "multiply":
		return a * b, nil
	case "divide":
		if b == 0 {
			return 0, errors.New("Division by zero")
		}
		return a / b, nil
	default:
		return 0, fmt.Errorf("Unknown operation %q: expected %s", op, operations)
	}
}

// operand returns the number args[name]. A JSON number too large for a
// float64 is ±Infinity, as in JavaScript.
func operand(args wasmgate.Object, name string) (float64, error) {
	if !args.Has(name) {
		return 0, fmt.Errorf("Missing operand %q: expected a number", name)
	}
	f, ok := args.Number(name)
	if !ok {
		return 0, fmt.Errorf("Invalid operand %q: expected a number", name) // a string, boolean, null, object or array
	}
	return f, nil
}
