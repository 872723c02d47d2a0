package vtcore

// clusterCompactAt is the table size that triggers a sweep of the entries no
// cell refers to any more. A sweep costs one pass over both grids, so it is
// paid at most once per this many new clusters.
const clusterCompactAt = 4096

// clusterTable interns the grapheme clusters of more than one rune (a base
// with combining marks, ZWJ emoji, flags) so that cells stay pointer-free and
// refer to them by index.
type clusterTable struct {
	strs  []string
	index map[string]int32
	// limit is the size that triggers the next sweep: clusterCompactAt, or
	// twice what the last sweep kept, so a screen full of distinct clusters
	// does not sweep on every new one.
	limit int
}

// lookup returns the cluster with index i.
func (ct *clusterTable) lookup(i int32) string {
	if i < 0 || int(i) >= len(ct.strs) {
		return ""
	}
	return ct.strs[i]
}

// intern returns the index of cluster, adding it when new. The lookup does
// not allocate; only a cluster seen for the first time is copied.
func (ct *clusterTable) intern(cluster []byte) int32 {
	if i, ok := ct.index[string(cluster)]; ok {
		return i
	}
	if ct.index == nil {
		ct.index = make(map[string]int32)
	}
	s := string(cluster)
	i := int32(len(ct.strs))
	ct.strs = append(ct.strs, s)
	ct.index[s] = i
	return i
}

// full reports whether the table has grown enough to be swept.
func (ct *clusterTable) full() bool { return len(ct.strs) >= max(ct.limit, clusterCompactAt) }

// compact keeps only the clusters the given rows still show and renumbers
// the cells that show them.
func (ct *clusterTable) compact(grids ...[][]Cell) {
	remap := make(map[int32]int32)
	var strs []string
	index := make(map[string]int32)
	for _, lines := range grids {
		for _, line := range lines {
			for x := range line {
				c := &line[x]
				if c.content >= 0 {
					continue
				}
				old := -c.content - 1
				n, ok := remap[old]
				if !ok {
					n = int32(len(strs))
					s := ct.lookup(old)
					strs = append(strs, s)
					index[s] = n
					remap[old] = n
				}
				c.content = -(n + 1)
			}
		}
	}
	ct.strs, ct.index = strs, index
	ct.limit = 2 * len(strs)
}
