// Package textdiff renders line-based unified diffs for failure messages.
package textdiff

import (
	"fmt"
	"strings"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// Unified returns a unified diff of want and got labelled "-want +got"
// headers (wantName, gotName), or "" when they are equal. Lines are split on
// "\n"; a missing final newline is not reported.
func Unified(wantName, gotName, want, got string) string {
	if want == got {
		return ""
	}
	a, b := splitLines(want), splitLines(got)
	ops := edits(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", wantName, gotName)
	for _, h := range hunks(ops) {
		writeHunk(&sb, h, a, b)
	}
	return sb.String()
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// op is one line of the edit script: ' ' keep, '-' delete from a, '+' insert from b.
type op struct {
	kind byte
	ai   int // index in a (keep, delete)
	bi   int // index in b (keep, insert)
}

// edits computes a shortest edit script with the Myers O(ND) algorithm.
func edits(a, b []string) []op {
	n, m := len(a), len(b)
	max := n + m
	v := make([]int, 2*max+2)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[max+k-1] < v[max+k+1]) {
				x = v[max+k+1]
			} else {
				x = v[max+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[max+k] = x
			if x >= n && y >= m {
				return backtrack(trace, a, b, d, max)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, a, b []string, d, max int) []op {
	x, y := len(a), len(b)
	var rev []op
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && v[max+k-1] < v[max+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[max+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, op{' ', x, y})
		}
		if x == prevX {
			y--
			rev = append(rev, op{'+', x, y})
		} else {
			x--
			rev = append(rev, op{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{' ', x, y})
	}
	out := make([]op, len(rev))
	for i, o := range rev {
		out[len(rev)-1-i] = o
	}
	return out
}

// hunks groups the edit script into runs of changes with Context lines around.
func hunks(ops []op) [][]op {
	var out [][]op
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-Context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			j := end
			for j < len(ops) && ops[j].kind == ' ' {
				j++
			}
			if j == len(ops) || j-end > 2*Context {
				end = min(end+Context, len(ops))
				break
			}
			end = j
		}
		out = append(out, ops[start:end])
		i = end
	}
	return out
}

func writeHunk(sb *strings.Builder, h []op, a, b []string) {
	var as, bs, an, bn int
	as, bs = -1, -1
	for _, o := range h {
		if o.kind != '+' {
			if as < 0 {
				as = o.ai
			}
			an++
		}
		if o.kind != '-' {
			if bs < 0 {
				bs = o.bi
			}
			bn++
		}
	}
	if as < 0 {
		as = h[0].ai - 1
	}
	if bs < 0 {
		bs = h[0].bi - 1
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", as+1, an, bs+1, bn)
	for _, o := range h {
		switch o.kind {
		case ' ':
			sb.WriteString(" " + a[o.ai] + "\n")
		case '-':
			sb.WriteString("-" + a[o.ai] + "\n")
		case '+':
			sb.WriteString("+" + b[o.bi] + "\n")
		}
	}
}
