package expctxkeys

// DoneWatcherKey is a context.Context Value key. Its associated value is a
// *donewatch.Watcher.
type DoneWatcherKey struct{}
