// Package refcount counts the holders of what a reload reuses when its
// config leaves it unchanged: a plugin's compiled module and instances,
// an upstream's process and sessions, the Redis connection, the tracer
// provider, a snapshot's components. The snapshot that builds it holds
// it once; each later snapshot that reuses it holds it again; the last
// to let go cleans it up.
package refcount

import "sync/atomic"

// Count is the number of holders of one thing; the zero value has none.
type Count struct{ n atomic.Int32 }

// Init makes the builder its only holder.
func (c *Count) Init() { c.n.Store(1) }

// Retain holds it once more, if it is still held: false when the last
// holder has let go (it is being cleaned up), and the caller must build
// its own.
func (c *Count) Retain() bool {
	for {
		n := c.n.Load()
		if n <= 0 {
			return false
		}
		if c.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release lets go once; true for the last holder, who cleans it up.
func (c *Count) Release() bool { return c.n.Add(-1) == 0 }

// Holders is how many hold it now.
func (c *Count) Holders() int32 { return c.n.Load() }
