// Package recache compiles regular expressions once: an agent waits for
// the same prompt or marker pattern over and over, and compiling it again
// for each wait costs more than the wait's look at the screen.
package recache

import (
	"regexp"
	"sync"
)

const (
	// maxEntries bounds the cache; when full it starts again empty, which
	// keeps it small without bookkeeping per use.
	maxEntries = 256
	// maxLen: longer patterns are compiled every time, so a client
	// sending huge ones cannot make the cache hold them.
	maxLen = 1024
)

var (
	mu    sync.Mutex
	cache = map[string]*regexp.Regexp{}
)

// Compile is regexp.Compile, answered from the cache for a pattern
// compiled before. A *regexp.Regexp is safe for concurrent use, so every
// caller shares one. Errors are not kept.
func Compile(expr string) (*regexp.Regexp, error) {
	if len(expr) > maxLen {
		return regexp.Compile(expr)
	}
	mu.Lock()
	re, ok := cache[expr]
	mu.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	if len(cache) >= maxEntries {
		clear(cache)
	}
	cache[expr] = re
	mu.Unlock()
	return re, nil
}
