package lines

// A Hit is a line found equal to a key by a pass that cannot append to the keys' shared
// position lists: a pass shared by two goroutines keeps each piece's hits apart.
type Hit struct{ Key, Line int32 }

// AppendHits appends the hits of the pieces of a pass, in piece order, to each key's
// positions, so that positions found in file order stay in file order. Each key's list,
// when it has none yet, is made at its length, all of them from one allocation.
func AppendHits(occ [][]int32, pieces [][]Hit) {
	count := make([]int32, len(occ))
	total := 0
	for _, hs := range pieces {
		for _, h := range hs {
			if len(occ[h.Key]) == 0 {
				count[h.Key]++
				total++
			}
		}
	}
	room := make([]int32, total)
	for k, c := range count {
		if c > 0 {
			occ[k], room = room[:0:c], room[c:]
		}
	}
	for _, hs := range pieces {
		for _, h := range hs {
			occ[h.Key] = append(occ[h.Key], h.Line)
		}
	}
}
