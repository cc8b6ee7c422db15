package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written as "5s" in YAML.
type Duration time.Duration

// String writes a duration as time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }

// ByteSize is a size written as 64MiB, 512KiB, 1GB or a plain byte count.
type ByteSize int64

// ParseByteSize parses 64MiB, 512KiB, 1GiB, 10MB, 4096 or 4096B.
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
		{"B", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			mult = u.mult
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q (write e.g. 64MiB, 512KiB or a byte count)", s)
	}
	return n * mult, nil
}

// String writes a size the way ParseByteSize reads it.
func (b ByteSize) String() string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return fmt.Sprintf("%dB", int64(b))
}

var (
	durationType = reflect.TypeOf(Duration(0))
	byteSizeType = reflect.TypeOf(ByteSize(0))
)

// DecodeHooks are the mapstructure decode hooks for the value types of
// this package, in the order the loader applies them.
func DecodeHooks() []func(from, to reflect.Type, data any) (any, error) {
	return []func(from, to reflect.Type, data any) (any, error){durationHook, byteSizeHook, intHook}
}

func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != durationType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("invalid duration %q (write e.g. 5s, 250ms, 1m)", v)
		}
		return Duration(d), nil
	case int, int64, uint64, float64:
		return nil, fmt.Errorf("duration %v needs a unit (write e.g. %vs)", v, v)
	}
	return nil, fmt.Errorf("invalid duration %v", data)
}

// intHook refuses fractions for integer keys (mapstructure would truncate).
func intHook(from, to reflect.Type, data any) (any, error) {
	if to.Kind() != reflect.Int {
		return data, nil
	}
	if f, ok := data.(float64); ok && f != float64(int64(f)) {
		return nil, fmt.Errorf("%v is not a whole number", f)
	}
	return data, nil
}

func byteSizeHook(from, to reflect.Type, data any) (any, error) {
	if to != byteSizeType {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		n, err := ParseByteSize(v)
		if err != nil {
			return nil, err
		}
		return ByteSize(n), nil
	case int:
		return ByteSize(v), nil
	case int64:
		return ByteSize(v), nil
	case uint64:
		return ByteSize(v), nil
	}
	return nil, fmt.Errorf("invalid size %v (write e.g. 64MiB)", data)
}

// CheckListen checks a host:port listen address.
func CheckListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port, e.g. 127.0.0.1:8080")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number in 0..65535", port)
	}
	return nil
}

// CheckOrigin checks an allowed origin: scheme://host[:port], no "*".
func CheckOrigin(o string) error {
	if o == "*" {
		return errors.New(`"*" is not allowed; list each origin`)
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return errors.New("want scheme://host[:port], e.g. https://app.example.com")
	}
	return nil
}

// ValidName reports whether s is a usable name: 1-64 letters, digits,
// '_', '-' or '.'.
func ValidName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
