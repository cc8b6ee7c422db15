// pass is the smallest Go interceptor: it lets every call and result
// through, in both phases. It is the starting point of one of your own,
// and what `make bench-interceptors` measures as the cost of a Go
// interceptor that decides nothing.
package main

func main() {}
