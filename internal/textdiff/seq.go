package textdiff

// Edit is one step of an edit script between sequences a and b: keep a[A]
// (== b[B]), delete a[A], or insert b[B].
type Edit struct {
	Kind byte // ' ', '-', '+'
	A, B int
}

// maxEdits bounds the Myers search: past this many insertions and deletions
// the middle of the two sequences is reported as wholly replaced. Words and
// array elements are short sequences; the bound keeps time and memory small
// for adversarial input without a linear-space algorithm.
const maxEdits = 128

// Seq returns an edit script turning a (length n) into b (length m),
// where eq(i, j) reports a[i] == b[j]. Common prefix and suffix are trimmed
// first; the rest is a shortest script (Myers) when one exists within
// maxEdits, else a delete-all, insert-all replacement.
func Seq(n, m int, eq func(i, j int) bool) []Edit {
	pre := 0
	for pre < n && pre < m && eq(pre, pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && eq(n-1-suf, m-1-suf) {
		suf++
	}
	var out []Edit
	for i := range pre {
		out = append(out, Edit{' ', i, i})
	}
	mid := myers(n-pre-suf, m-pre-suf, func(i, j int) bool { return eq(pre+i, pre+j) })
	if mid == nil {
		mid = replaceAll(n-pre-suf, m-pre-suf)
	}
	for _, e := range mid {
		out = append(out, Edit{e.Kind, e.A + pre, e.B + pre})
	}
	for k := range suf {
		out = append(out, Edit{' ', n - suf + k, m - suf + k})
	}
	return out
}

func replaceAll(n, m int) []Edit {
	out := make([]Edit, 0, n+m)
	for i := range n {
		out = append(out, Edit{'-', i, 0})
	}
	for j := range m {
		out = append(out, Edit{'+', n, j})
	}
	return out
}

// myers is the O(ND) shortest edit script, or nil when D > maxEdits.
func myers(n, m int, eq func(i, j int) bool) []Edit {
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d, off)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, n, m, d, off int) []Edit {
	x, y := n, m
	var rev []Edit
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, Edit{' ', x, y})
		}
		if x == prevX {
			y--
			rev = append(rev, Edit{'+', x, y})
		} else {
			x--
			rev = append(rev, Edit{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, Edit{' ', x, y})
	}
	out := make([]Edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// Pair is one unequal element of an alignment: a[A] replaced by b[B], or
// (B -1) a[A] removed, or (A -1) b[B] added.
type Pair struct{ A, B int }

// Align aligns a (length n) and b (length m) by content (the edit script
// of [Seq]) and pairs each run of removed elements with the run of added
// ones at the same place, in order: the k-th removed is replaced by the
// k-th added, the rest of the longer run stand alone. Equal elements are
// left out. Callers compare a replaced pair member by member, so that one
// element removed from an array is one change, not a change of every
// element after it.
func Align(n, m int, eq func(i, j int) bool) []Pair {
	var out, dels, inss []Pair
	flush := func() {
		for k := range max(len(dels), len(inss)) {
			switch {
			case k >= len(inss):
				out = append(out, dels[k])
			case k >= len(dels):
				out = append(out, inss[k])
			default:
				out = append(out, Pair{dels[k].A, inss[k].B})
			}
		}
		dels, inss = dels[:0], inss[:0]
	}
	for _, e := range Seq(n, m, eq) {
		switch e.Kind {
		case '-':
			dels = append(dels, Pair{e.A, -1})
		case '+':
			inss = append(inss, Pair{-1, e.B})
		default:
			flush()
		}
	}
	flush()
	return out
}
