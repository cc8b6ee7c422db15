package extism

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	observe "github.com/dylibso/observe-sdk/go"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

type PluginCtxKey string
type InputOffsetKey string

// callValues is the context of a call (wasmgate patch): it answers
// PluginCtxKey("extism") with the kernel module, PluginCtxKey("plugin")
// with the plugin and InputOffsetKey("inputOffset") with the input's
// offset, as the three context.WithValue of upstream did, in one
// allocation.
type callValues struct {
	context.Context
	p           *Plugin
	inputOffset uint64
}

func (c *callValues) Value(key any) any {
	switch key {
	case PluginCtxKey("extism"):
		return c.p.extism
	case PluginCtxKey("plugin"):
		return c.p
	case InputOffsetKey("inputOffset"):
		return c.inputOffset
	}
	return c.Context.Value(key)
}

//go:embed extism-runtime.wasm
var extismRuntimeWasm []byte

//go:embed extism-runtime.wasm.version
var extismRuntimeWasmVersion string

func RuntimeVersion() string {
	return extismRuntimeWasmVersion
}

// Runtime represents the Extism plugin's runtime environment, including the underlying Wazero runtime and modules.
type Runtime struct {
	Wazero wazero.Runtime
	Extism api.Module
	Env    api.Module
}

// PluginInstanceConfig contains configuration options for the Extism plugin.
type PluginInstanceConfig struct {
	// ModuleConfig allows the user to specify custom module configuration.
	//
	// NOTE: Module name and start functions are ignored as they are overridden by Extism, also if Manifest contains
	// non-empty AllowedPaths, then FS is also ignored. If EXTISM_ENABLE_WASI_OUTPUT is set, then stdout and stderr are
	// set to os.Stdout and os.Stderr respectively (ignoring user defined module config).
	ModuleConfig wazero.ModuleConfig
}

// HttpRequest represents an HTTP request to be made by the plugin.
type HttpRequest struct {
	Url     string
	Headers map[string]string
	Method  string
}

// LogLevel defines different log levels.
type LogLevel int32

const (
	logLevelUnset LogLevel = iota // unexporting this intentionally so its only ever the default
	LogLevelTrace
	LogLevelDebug
	LogLevelInfo
	LogLevelWarn
	LogLevelError

	LogLevelOff LogLevel = math.MaxInt32
)

func (l LogLevel) ExtismCompat() int32 {
	switch l {
	case LogLevelTrace:
		return 0
	case LogLevelDebug:
		return 1
	case LogLevelInfo:
		return 2
	case LogLevelWarn:
		return 3
	case LogLevelError:
		return 4
	default:
		return int32(LogLevelOff)
	}
}

func (l LogLevel) String() string {
	s := ""
	switch l {
	case LogLevelTrace:
		s = "TRACE"
	case LogLevelDebug:
		s = "DEBUG"
	case LogLevelInfo:
		s = "INFO"
	case LogLevelWarn:
		s = "WARN"
	case LogLevelError:
		s = "ERROR"
	default:
		s = "OFF"
	}
	return s
}

// Plugin is used to call WASM functions
type Plugin struct {
	close                []func(ctx context.Context) error
	extism               api.Module
	mainModule           api.Module
	modules              map[string]api.Module
	Timeout              time.Duration
	Config               map[string]string
	Var                  map[string][]byte
	AllowedHosts         []string
	AllowedPaths         map[string]string
	LastStatusCode       int
	LastResponseHeaders  map[string]string
	MaxHttpResponseBytes int64
	MaxVarBytes          int64
	httpRequest          HTTPRequestFunc // wasmgate patch: see PluginConfig.HTTPRequest
	log                  func(LogLevel, string)
	hasWasi              bool
	guestRuntime         guestRuntime
	Adapter              *observe.AdapterBase
	traceCtx             *observe.TraceCtx
	stack                [2]uint64 // kernelCall's (wasmgate patch)
	callStack            [1]uint64 // the export's, in CallWithContext (wasmgate patch)
}

func logStd(level LogLevel, message string) {
	log.Print(message)
}

func (p *Plugin) Module() *Module {
	return &Module{inner: p.mainModule}
}

// SetLogger sets a custom logging callback
func (p *Plugin) SetLogger(logger func(LogLevel, string)) {
	p.log = logger
}

func (p *Plugin) Log(level LogLevel, message string) {
	if level >= minLogLevel() {
		p.log(level, message)
	}
}

// minLogLevel is the level below which messages are dropped (wasmgate
// patch: shared by Log and Logf).
func minLogLevel() LogLevel {
	minimumLevel := LogLevel(pluginLogLevel.Load())

	// If the global log level hasn't been set, use LogLevelOff as default
	if minimumLevel == logLevelUnset {
		minimumLevel = LogLevelOff
	}
	return minimumLevel
}

func (p *Plugin) Logf(level LogLevel, format string, args ...any) {
	// wasmgate patch: the level first, so that a message below it is not
	// formatted (upstream ran fmt.Sprintf on every call's "Calling
	// function" debug line).
	if level < minLogLevel() {
		return
	}
	p.log(level, fmt.Sprintf(format, args...))
}

// Wasm is an interface that represents different ways of providing WebAssembly data.
type Wasm interface {
	ToWasmData(ctx context.Context) (WasmData, error)
}

// WasmData represents in-memory WebAssembly data, including its content, hash, and name.
type WasmData struct {
	Data []byte `json:"data"`
	Hash string `json:"hash,omitempty"`
	Name string `json:"name,omitempty"`
}

// WasmFile represents WebAssembly data that needs to be loaded from a file.
type WasmFile struct {
	Path string `json:"path"`
	Hash string `json:"hash,omitempty"`
	Name string `json:"name,omitempty"`
}

// WasmUrl represents WebAssembly data that needs to be fetched from a URL.
type WasmUrl struct {
	Url     string            `json:"url"`
	Hash    string            `json:"hash,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Name    string            `json:"name,omitempty"`
	Method  string            `json:"method,omitempty"`
}

type concreteWasm struct {
	Data    []byte            `json:"data,omitempty"`
	Path    string            `json:"path,omitempty"`
	Url     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Method  string            `json:"method,omitempty"`
	Hash    string            `json:"hash,omitempty"`
	Name    string            `json:"name,omitempty"`
}

func (d WasmData) ToWasmData(ctx context.Context) (WasmData, error) {
	return d, nil
}

func (f WasmFile) ToWasmData(ctx context.Context) (WasmData, error) {
	select {
	case <-ctx.Done():
		return WasmData{}, ctx.Err()
	default:
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return WasmData{}, err
		}

		return WasmData{
			Data: data,
			Hash: f.Hash,
			Name: f.Name,
		}, nil
	}
}

func (u WasmUrl) ToWasmData(ctx context.Context) (WasmData, error) {
	client := http.DefaultClient

	req, err := http.NewRequestWithContext(ctx, u.Method, u.Url, nil)
	if err != nil {
		return WasmData{}, err
	}

	for key, value := range u.Headers {
		req.Header.Set(key, value)
	}

	resp, err := client.Do(req)
	if err != nil {
		return WasmData{}, err
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		return WasmData{}, errors.New("failed to fetch Wasm data from URL")
	}

	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return WasmData{}, err
	}

	return WasmData{
		Data: data,
		Hash: u.Hash,
		Name: u.Name,
	}, nil
}

type ManifestMemory struct {
	MaxPages             uint32 `json:"max_pages,omitempty"`
	MaxHttpResponseBytes int64  `json:"max_http_response_bytes,omitempty"`
	MaxVarBytes          int64  `json:"max_var_bytes,omitempty"`
}

// Manifest represents the plugin's manifest, including Wasm modules and configuration.
// See https://extism.org/docs/concepts/manifest for schema.
type Manifest struct {
	Wasm         []Wasm            `json:"wasm"`
	Memory       *ManifestMemory   `json:"memory,omitempty"`
	Config       map[string]string `json:"config,omitempty"`
	AllowedHosts []string          `json:"allowed_hosts,omitempty"`
	AllowedPaths map[string]string `json:"allowed_paths,omitempty"`
	Timeout      uint64            `json:"timeout_ms,omitempty"`
}

type concreteManifest struct {
	Wasm   []concreteWasm `json:"wasm"`
	Memory *struct {
		MaxPages             uint32 `json:"max_pages,omitempty"`
		MaxHttpResponseBytes *int64 `json:"max_http_response_bytes,omitempty"`
		MaxVarBytes          *int64 `json:"max_var_bytes,omitempty"`
	} `json:"memory,omitempty"`
	Config       map[string]string `json:"config,omitempty"`
	AllowedHosts []string          `json:"allowed_hosts,omitempty"`
	AllowedPaths map[string]string `json:"allowed_paths,omitempty"`
	Timeout      uint64            `json:"timeout_ms,omitempty"`
}

func (m *Manifest) UnmarshalJSON(data []byte) error {
	tmp := concreteManifest{}
	err := json.Unmarshal(data, &tmp)
	if err != nil {
		return err
	}

	m.Memory = &ManifestMemory{}
	if tmp.Memory != nil {
		m.Memory.MaxPages = tmp.Memory.MaxPages
		if tmp.Memory.MaxHttpResponseBytes != nil {
			m.Memory.MaxHttpResponseBytes = *tmp.Memory.MaxHttpResponseBytes
		} else {
			m.Memory.MaxHttpResponseBytes = -1
		}

		if tmp.Memory.MaxVarBytes != nil {
			m.Memory.MaxVarBytes = *tmp.Memory.MaxVarBytes
		} else {
			m.Memory.MaxVarBytes = -1
		}
	} else {
		m.Memory.MaxPages = 0
		m.Memory.MaxHttpResponseBytes = -1
		m.Memory.MaxVarBytes = -1
	}
	m.Config = tmp.Config
	m.AllowedHosts = tmp.AllowedHosts
	m.AllowedPaths = tmp.AllowedPaths
	m.Timeout = tmp.Timeout
	if m.Wasm == nil {
		m.Wasm = []Wasm{}
	}
	for _, w := range tmp.Wasm {
		if len(w.Data) > 0 {
			m.Wasm = append(m.Wasm, WasmData{Data: w.Data, Hash: w.Hash, Name: w.Name})
		} else if len(w.Path) > 0 {
			m.Wasm = append(m.Wasm, WasmFile{Path: w.Path, Hash: w.Hash, Name: w.Name})
		} else if len(w.Url) > 0 {
			m.Wasm = append(m.Wasm, WasmUrl{
				Url:     w.Url,
				Headers: w.Headers,
				Method:  w.Method,
				Hash:    w.Hash,
				Name:    w.Name,
			})
		} else {
			return errors.New("invalid Wasm entry")
		}
	}
	return nil
}

// Close closes the plugin by freeing the underlying resources.
func (p *Plugin) Close(ctx context.Context) error {
	return p.CloseWithContext(ctx)
}

// CloseWithContext closes the plugin by freeing the underlying resources.
func (p *Plugin) CloseWithContext(ctx context.Context) error {
	for _, fn := range p.close {
		if err := fn(ctx); err != nil {
			return err
		}
	}
	return nil
}

// add an atomic global to store the plugin runtime-wide log level
var pluginLogLevel = atomic.Int32{}

// SetPluginLogLevel sets the log level for the plugin
func SetLogLevel(level LogLevel) {
	pluginLogLevel.Store(int32(level))
}

// SetInput sets the input data for the plugin to be used in the next WebAssembly function call.
func (p *Plugin) SetInput(data []byte) (uint64, error) {
	return p.SetInputWithContext(context.Background(), data)
}

// SetInputWithContext sets the input data for the plugin to be used in the next WebAssembly function call.
func (p *Plugin) SetInputWithContext(ctx context.Context, data []byte) (uint64, error) {
	_, err := p.kernelCall(ctx, "reset")
	if err != nil {
		// wasmgate patch: the error is returned, not printed on stdout.
		return 0, fmt.Errorf("reset: %w", err)
	}

	ptr, err := p.kernelCall(ctx, "alloc", uint64(len(data)))
	if err != nil {
		return 0, err
	}
	// wasmgate patch: the kernel's alloc returns 0 when the memory limit
	// refuses the block; writing there would corrupt the kernel.
	if ptr == 0 && len(data) > 0 {
		return 0, fmt.Errorf("%w: cannot allocate %d bytes of input", ErrOutOfMemory, len(data))
	}
	if !p.Memory().Write(uint32(ptr), data) {
		return 0, fmt.Errorf("%w: cannot write %d bytes of input at %d", ErrOutOfMemory, len(data), ptr)
	}
	if _, err := p.kernelCall(ctx, "input_set", ptr, uint64(len(data))); err != nil {
		return 0, err
	}
	return ptr, nil
}

// kernelCall calls the kernel's export name with params and returns its
// first result, on the plugin's own stack rather than a slice allocated
// for each call (wasmgate patch). Only the calls the host makes between
// the guest's calls use it (a Plugin runs one call at a time); the host
// functions the guest calls keep Call.
func (p *Plugin) kernelCall(ctx context.Context, name string, params ...uint64) (uint64, error) {
	s := p.stack[:]
	copy(s, params)
	if err := p.extism.ExportedFunction(name).CallWithStack(ctx, s); err != nil {
		return 0, err
	}
	return s[0], nil
}

// ErrOutOfMemory reports a block that the plugin's memory limit refused
// (wasmgate patch).
var ErrOutOfMemory = errors.New("out of memory")

// GetOutput retrieves the output data from the last WebAssembly function call.
func (p *Plugin) GetOutput() ([]byte, error) {
	return p.GetOutputWithContext(context.Background())
}

// GetOutputWithContext retrieves the output data from the last WebAssembly function call.
func (p *Plugin) GetOutputWithContext(ctx context.Context) ([]byte, error) {
	outputOffs, err := p.kernelCall(ctx, "output_offset")
	if err != nil {
		return []byte{}, err
	}

	outputLen, err := p.kernelCall(ctx, "output_length")
	if err != nil {
		return []byte{}, err
	}
	// wasmgate patch: an output block at 0 is a guest whose alloc failed
	// (it then wrote over the kernel's header), and a block outside memory
	// cannot be read: both are failures, not an empty output.
	if outputOffs == 0 && outputLen > 0 {
		return nil, fmt.Errorf("%w: the plugin could not allocate its %d-byte output", ErrOutOfMemory, outputLen)
	}
	mem, ok := p.Memory().Read(uint32(outputOffs), uint32(outputLen))
	if !ok {
		return nil, fmt.Errorf("output block %d+%d is outside the plugin's memory", outputOffs, outputLen)
	}

	// Make sure output is copied, because `Read` returns a write-through view
	buffer := make([]byte, len(mem))
	copy(buffer, mem)

	return buffer, nil
}

// Memory returns the plugin's WebAssembly memory interface.
func (p *Plugin) Memory() api.Memory {
	return p.extism.ExportedMemory("memory")
}

// GetError retrieves the error message from the last WebAssembly function call, if any.
func (p *Plugin) GetError() string {
	return p.GetErrorWithContext(context.Background())
}

// GetErrorWithContext retrieves the error message from the last WebAssembly function call.
func (p *Plugin) GetErrorWithContext(ctx context.Context) string {
	errOffs, err := p.kernelCall(ctx, "error_get")
	if err != nil {
		return ""
	}

	if errOffs == 0 {
		return ""
	}

	errLen, err := p.kernelCall(ctx, "length", errOffs)
	if err != nil {
		return ""
	}

	mem, _ := p.Memory().Read(uint32(errOffs), uint32(errLen))
	return string(mem)
}

// FunctionExists returns true when the named function is present in the plugin's main Module
func (p *Plugin) FunctionExists(name string) bool {
	return p.mainModule.ExportedFunction(name) != nil
}

// Call a function by name with the given input, returning the output
func (p *Plugin) Call(name string, data []byte) (uint32, []byte, error) {
	return p.CallWithContext(context.Background(), name, data)
}

// Call a function by name with the given input and context, returning the output
func (p *Plugin) CallWithContext(ctx context.Context, name string, data []byte) (uint32, []byte, error) {
	if p.mainModule.IsClosed() {
		return 0, nil, fmt.Errorf("module is closed")
	}

	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}

	intputOffset, err := p.SetInput(data)
	if err != nil {
		return 1, []byte{}, err
	}

	// wasmgate patch: the kernel, the plugin and the input's offset in one
	// context value (callValues) rather than three.
	ctx = &callValues{Context: ctx, p: p, inputOffset: intputOffset}

	var f = p.mainModule.ExportedFunction(name)

	if f == nil {
		return 1, []byte{}, fmt.Errorf("unknown function: %s", name)
	}
	n := len(f.Definition().ResultTypes())
	if n > 1 {
		return 1, []byte{}, fmt.Errorf("function %s has %v results, expected 0 or 1", name, n)
	}
	if m := len(f.Definition().ParamTypes()); m > 0 {
		// wasmgate patch: as f.Call would fail (CallWithStack, below,
		// does not count them).
		return 1, []byte{}, fmt.Errorf("function %s takes %d parameters, expected none", name, m)
	}

	var isStart = name == "_start" || name == "_initialize"
	if p.guestRuntime.init != nil && !isStart && !p.guestRuntime.initialized {
		err := p.guestRuntime.init(ctx)
		if err != nil {
			return 1, []byte{}, fmt.Errorf("failed to initialize runtime: %v", err)
		}
		p.guestRuntime.initialized = true
	}

	p.Logf(LogLevelDebug, "Calling function : %v", name)

	// wasmgate patch: on the plugin's own stack (the export takes no
	// parameters and has at most one result), not a slice per call.
	var res []uint64
	stack := p.callStack[:]
	if err = f.CallWithStack(ctx, stack); err == nil {
		res = stack[:n]
	}

	if p.traceCtx != nil {
		defer p.traceCtx.Finish()
	}

	// Try to extact WASI exit code
	if exitErr, ok := err.(*sys.ExitError); ok {
		exitCode := exitErr.ExitCode()

		if exitCode == 0 {
			err = nil
		}

		if len(res) == 0 {
			res = []uint64{api.EncodeU32(exitCode)}
		}
	}

	var rc uint32
	if len(res) == 0 {
		// As long as there is no error, we assume the call has succeeded
		if err == nil {
			rc = 0
		} else {
			rc = 1
		}
	} else {
		rc = api.DecodeU32(res[0])
	}

	if err != nil {
		return rc, []byte{}, err
	}

	var returnErr error = nil
	errMsg := p.GetErrorWithContext(ctx)
	if errMsg != "" {
		returnErr = errors.New(errMsg)
	}

	output, err := p.GetOutputWithContext(ctx)
	if err != nil {
		e := fmt.Errorf("failed to get output: %v", err)
		if returnErr != nil {
			return rc, []byte{}, errors.Join(returnErr, e)
		} else {
			return rc, []byte{}, e
		}
	}

	return rc, output, returnErr
}

func calculateHash(data []byte) string {
	hasher := sha256.New()
	hasher.Write(data)
	return hex.EncodeToString(hasher.Sum(nil))
}
