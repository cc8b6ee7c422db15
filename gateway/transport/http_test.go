package transport

import (
	"errors"
	"net"
	"testing"
	"time"
)

// TestLimitListener: past n connections Accept waits until one closes,
// and Close ends a waiting Accept.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := NewLimitListener(inner, 2)
	defer ln.Close()
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	b, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.(interface{ CloseWrite() error }); !ok {
		t.Error("accepted connections lost CloseWrite")
	}
	third := make(chan net.Conn)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(third)
			return
		}
		third <- c
	}()
	select {
	case <-third:
		t.Fatal("a third connection was accepted with the limit at 2")
	case <-time.After(100 * time.Millisecond):
	}
	a.Close()
	a.Close() // closing twice gives back one place only
	c, ok := <-third
	if !ok {
		t.Fatal("Accept failed after a connection closed")
	}
	defer c.Close()
	defer b.Close()

	waiting := make(chan error)
	go func() {
		_, err := ln.Accept()
		waiting <- err
	}()
	ln.Close()
	if err := <-waiting; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept waiting for a place after Close: %v, want net.ErrClosed", err)
	}
}
