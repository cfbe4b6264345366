package pathwalk

// A memo keeps, for the length of one check, what each name was found to be. Names are
// keyed by their directory's node and their last component, so that finding a name n
// levels deep hashes one short component, not a name of n components; a node is a
// directory found on the way from a base, numbered as found.
type memo struct {
	bases   map[string]int
	entries map[memoKey]memoEntry
	nodes   int
}

type memoKey struct {
	dir  int
	comp string
}

type memoEntry struct {
	info linkInfo
	id   int
}

func newMemo() *memo {
	return &memo{bases: map[string]int{}, entries: map[memoKey]memoEntry{}}
}

// baseID is the node of a walk's base; 0 without a memo.
func (m *memo) baseID(base string) int {
	if m == nil {
		return 0
	}
	id, ok := m.bases[base]
	if !ok {
		m.nodes++
		id = m.nodes
		m.bases[base] = id
	}
	return id
}

func (m *memo) get(k memoKey) (memoEntry, bool) {
	if m == nil {
		return memoEntry{}, false
	}
	e, ok := m.entries[k]
	return e, ok
}

// put keeps what k was found to be and returns its node; 0 without a memo.
func (m *memo) put(k memoKey, info linkInfo) int {
	if m == nil {
		return 0
	}
	m.nodes++
	m.entries[k] = memoEntry{info: info, id: m.nodes}
	return m.nodes
}
