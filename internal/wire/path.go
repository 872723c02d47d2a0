package wire

import (
	"fmt"
	"strconv"
)

// MaxDepth bounds how deep a tree of nodes nests, a leaf alone being one
// level: the deepest matcher the bundled plugins build has 6, so a tree
// past 32 is a mistake (or a request built to cost the server time).
const MaxDepth = 32

// Path is where a node sits in a tree of {"type", "value": [...]} nodes
// (a matcher): the root's name, then ".value[i]" per branch. It is built
// into a string only when an error names it: a path string made at every
// level made parsing a deep tree quadratic.
type Path struct {
	parent *Path
	name   string
	index  int
	depth  int
}

// Root is the path of a tree's root, called name ("matcher").
func Root(name string) *Path { return &Path{name: name, depth: 1} }

// Branch is the path of the i-th node of p's value.
func (p *Path) Branch(i int) *Path { return &Path{parent: p, index: i, depth: p.depth + 1} }

// Depth is how many levels the node sits at: the root is 1.
func (p *Path) Depth() int { return p.depth }

// Nests says whether p's branches fit under MaxDepth: if not, an error
// naming p's value.
func (p *Path) Nests() error {
	if p.depth >= MaxDepth {
		return fmt.Errorf("%s.value: nests deeper than %d levels", p, MaxDepth)
	}
	return nil
}

// String spells the path: matcher.value[0].value[2].
func (p *Path) String() string {
	if p.parent == nil {
		return p.name
	}
	return p.parent.String() + ".value[" + strconv.Itoa(p.index) + "]"
}
