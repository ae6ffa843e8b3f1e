package survey

import "strconv"

// A picker is a kind whose answers a filter may pick from a list rather
// than have typed: its choices, a scale's points, yes and no. Each value
// is one of the cells the kind gives the CSV (what a filter matches).
// Kinds whose answers people type (texts, numbers, dates) or that have
// no one answer to pick (a grid, a ranking, files) are not pickers.
type picker interface {
	picks(q Question) []string
}

// FilterPicks are the answers a filter may pick for q, in the order the
// respondent sees them; nil when its answers are typed.
func FilterPicks(q Question) []string {
	k, ok := KindOf(q.Type)
	if !ok {
		return nil
	}
	p, ok := k.(picker)
	if !ok {
		return nil
	}
	return p.picks(q)
}

// points are the numbers from to to, as text.
func points(from, to int) []string {
	out := make([]string, 0, to-from+1)
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}
