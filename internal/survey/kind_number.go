package survey

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Number is a decimal number, between the question's Min and Max when it
// has them, whole when Integer. It is stored in its canonical decimal form
// (canonicalNumber): no exponent, sign only when negative, no leading or
// trailing zeros, at most MaxNumberDigits digits, MaxNumberDecimals of
// them after the point. Its summary is NumberSummary: count, least,
// greatest, exact sum and a sample of the values, for a histogram.
const Number QuestionType = "Number"

// Bounds of a number answer.
const (
	MaxNumberDigits   = 15
	MaxNumberDecimals = 6
)

// histogramBins is the most bars of a number's histogram.
const histogramBins = 10

type numberKind struct{}

func (numberKind) Type() QuestionType { return Number }
func (numberKind) Key() string        { return "number" }
func (numberKind) Label() string      { return "Number" }
func (numberKind) Settings() Settings { return Settings{Bounds: "number", Integer: true} }

func (numberKind) normalize(q *Question) {
	for _, b := range []*string{&q.Min, &q.Max} {
		if v, problem := canonicalNumber(*b); problem.IsZero() {
			*b = v
		}
	}
}

func (numberKind) validate(q Question, key string, f fieldErrors) {
	ok := true
	for _, b := range []struct{ v, field string }{{q.Min, ".min"}, {q.Max, ".max"}} {
		if b.v == "" {
			continue
		}
		v, problem := canonicalNumber(b.v)
		switch {
		case !problem.IsZero():
			f.add(key+b.field, "%s", problem)
			ok = false
		case q.Integer && strings.Contains(v, "."):
			f.add(key+b.field, "With whole numbers only, give a whole number here.")
			ok = false
		}
	}
	if ok && q.Min != "" && q.Max != "" && rat(q.Min).Cmp(rat(q.Max)) > 0 {
		f.add(key+".max", "The greatest number cannot be less than the least (%s).", q.Min)
	}
}

func (numberKind) required() Msg { return M("Please give a number.") }

// canonicalNumber reads a decimal number as a respondent writes it (a
// sign, digits, a point or a comma and digits, white space around) and
// returns it in its canonical form, or a problem for people.
func canonicalNumber(s string) (string, Msg) {
	s = strings.TrimSpace(s)
	neg := false
	for _, sign := range []string{"-", "\u2212", "+"} {
		if rest, ok := strings.CutPrefix(s, sign); ok {
			neg, s = sign != "+", rest
			break
		}
	}
	whole, frac, point := strings.Cut(s, ".")
	if !point {
		whole, frac, _ = strings.Cut(s, ",")
	}
	if whole+frac == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		if strings.ContainsAny(s, "eE") && strings.Trim(s, "0123456789.,eE+-") == "" {
			return "", M("Please write the number in digits, without an exponent.")
		}
		return "", M("Please give a number in digits, like 42 or 3.5.")
	}
	whole, frac = strings.TrimLeft(whole, "0"), strings.TrimRight(frac, "0")
	if len(frac) > MaxNumberDecimals {
		return "", M("Please give at most %d digits after the decimal point.", MaxNumberDecimals)
	}
	if len(whole)+len(frac) > MaxNumberDigits {
		return "", M("Please give a number of at most %d digits.", MaxNumberDigits)
	}
	if whole == "" {
		whole = "0"
	}
	v := whole
	if frac != "" {
		v += "." + frac
	}
	if neg && v != "0" {
		v = "-" + v
	}
	return v, Msg{}
}

// numberWanted says what a question takes, for people: "a whole number
// between 1 and 10".
func numberWanted(q Question) Msg {
	what := M("a number")
	if q.Integer {
		what = M("a whole number")
	}
	switch {
	case q.Min != "" && q.Max != "":
		return M("%s between %s and %s", what, q.Min, q.Max)
	case q.Min != "":
		return M("%s of at least %s", what, q.Min)
	case q.Max != "":
		return M("%s of at most %s", what, q.Max)
	}
	return what
}

func (numberKind) answer(q Question, f Form) (string, Msg) {
	v := f.Get("")
	if v == "" {
		return "", Msg{}
	}
	n, problem := canonicalNumber(v)
	if !problem.IsZero() {
		if q.Integer || q.Min != "" || q.Max != "" {
			if strings.HasPrefix(problem.Format, "Please give a number in digits") {
				return "", M("Please give %s, in digits.", numberWanted(q))
			}
		}
		return "", problem
	}
	if (q.Integer && strings.Contains(n, ".")) || outside(n, q.Min, q.Max) {
		return "", M("Please give %s.", numberWanted(q))
	}
	return n, Msg{}
}

// outside reports whether the number n is below min or above max (""
// for none) as big.Rat compares them (rat): as whole numbers when all
// are (most answers and bounds), without big.Rat's allocations.
func outside(n, min, max string) bool {
	if x, ok := smallWhole(n); ok {
		lo, okLo := smallWhole(min)
		hi, okHi := smallWhole(max)
		if (okLo || min == "") && (okHi || max == "") {
			return (min != "" && x < lo) || (max != "" && x > hi)
		}
	}
	r := rat(n)
	return (min != "" && r.Cmp(rat(min)) < 0) || (max != "" && r.Cmp(rat(max)) > 0)
}

// smallWhole reads s when it is a whole number of at most 18 digits,
// maybe negative.
func smallWhole(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func (numberKind) form(_ Question, stored string) Form { return Value(stored) }

func (numberKind) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Numbers = &NumberSummary{Sum: "0", Values: map[string]int64{}}
}

func (numberKind) add(qs *QuestionAnswersSummary, answer string) {
	if qs.Numbers == nil {
		qs.Numbers = &NumberSummary{Sum: "0", Values: map[string]int64{}}
	}
	qs.Numbers.add(answer, qs.wordSlack)
}

// Chart: count, least, greatest and mean, and a histogram of up to
// histogramBins equal bins from the least to the greatest (of whole
// numbers when every value is whole), from the summary's sample of values.
func (numberKind) Chart(qs *QuestionAnswersSummary) Chart {
	ns := qs.Numbers
	if ns == nil || ns.Count == 0 {
		return Chart{}
	}
	dec := 0
	for _, v := range append([]string{ns.Min, ns.Max}, sortedKeys(ns.Values)...) {
		if _, frac, ok := strings.Cut(v, "."); ok {
			dec = max(dec, len(frac))
		}
	}
	round := func(r *big.Rat) string { return roundRat(r, min(dec+2, MaxNumberDecimals)) }
	c := Chart{Figures: []Figure{
		{M("Count").String(), strconv.FormatInt(ns.Count, 10)},
		{M("Least").String(), ns.Min},
	}}
	if q := quartiles(ns); q != nil {
		c.Figures = append(c.Figures,
			Figure{M("Lower quartile").String(), round(q[0])},
			Figure{M("Median").String(), round(q[1])},
			Figure{M("Upper quartile").String(), round(q[2])})
	}
	c.Figures = append(c.Figures,
		Figure{M("Greatest").String(), ns.Max},
		Figure{M("Mean").String(), round(ns.Mean())})
	c.Labels, c.Counts = histogram(ns, dec == 0)
	if ns.OtherValues > 0 {
		var sample int64
		for _, n := range ns.Values {
			sample += n
		}
		c.Note = fmt.Sprintf("The answers hold more distinct numbers than a summary keeps: the histogram counts a fixed sample of %d of the %d answers; the figures count them all; the median and quartiles, which would need every number, are not shown.", sample, ns.Count)
	}
	return c
}

// quartiles are the lower quartile, the median and the upper quartile of
// the summary's numbers, exactly, from the count of each distinct value
// (linearly between the two nearest numbers, as spreadsheets' QUARTILE
// does: the quartile p of n numbers in order x₀…xₙ₋₁ is at h = (n−1)·p,
// x⌊h⌋ + (h−⌊h⌋)·(x⌊h⌋₊₁ − x⌊h⌋)); nil when the summary does not count
// every number (OtherValues) or has none.
func quartiles(ns *NumberSummary) []*big.Rat {
	if ns.OtherValues > 0 || len(ns.Values) == 0 {
		return nil
	}
	type value struct {
		r *big.Rat
		n int64
	}
	vs := make([]value, 0, len(ns.Values))
	var count int64
	for v, n := range ns.Values {
		if n > 0 {
			vs = append(vs, value{rat(v), n})
			count += n
		}
	}
	if count == 0 {
		return nil
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].r.Cmp(vs[j].r) < 0 })
	at := func(k int64) *big.Rat { // the k-th number in order, from 0
		for _, v := range vs {
			if k < v.n {
				return v.r
			}
			k -= v.n
		}
		return vs[len(vs)-1].r
	}
	out := make([]*big.Rat, 0, 3)
	for quarter := int64(1); quarter <= 3; quarter++ {
		// h = (count−1)·quarter/4: its whole part k and fraction f/4.
		h := (count - 1) * quarter
		k, f := h/4, h%4
		lo := at(k)
		q := new(big.Rat).Set(lo)
		if f > 0 {
			step := new(big.Rat).Sub(at(k+1), lo)
			q.Add(q, step.Mul(step, big.NewRat(f, 4)))
		}
		out = append(out, q)
	}
	return out
}

// roundRat writes r rounded to at most dec decimals, without trailing
// zeros.
func roundRat(r *big.Rat, dec int) string {
	if r == nil {
		return ""
	}
	s := r.FloatString(dec)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// histogram bins the summary's values from its least to its greatest.
func histogram(ns *NumberSummary, whole bool) ([]string, []int64) {
	lo, hi := rat(ns.Min), rat(ns.Max)
	if lo.Cmp(hi) == 0 {
		var n int64
		for _, c := range ns.Values {
			n += c
		}
		return []string{ns.Min}, []int64{n}
	}
	span := new(big.Rat).Sub(hi, lo)
	var width *big.Rat
	bins := histogramBins
	if whole {
		// Bins of whole numbers: n = hi-lo+1 numbers, ceil(n/10) each.
		n := new(big.Int).Add(new(big.Int).Quo(span.Num(), span.Denom()), big.NewInt(1))
		w := new(big.Int).Quo(new(big.Int).Add(n, big.NewInt(histogramBins-1)), big.NewInt(histogramBins))
		width = new(big.Rat).SetInt(w)
		bins = int(new(big.Int).Quo(new(big.Int).Add(n, new(big.Int).Sub(w, big.NewInt(1))), w).Int64())
	} else {
		width = new(big.Rat).Quo(span, big.NewRat(histogramBins, 1))
	}
	counts := make([]int64, bins)
	for v, n := range ns.Values {
		// i = floor((v-lo)/width), the last bin holding hi.
		q := new(big.Rat).Quo(new(big.Rat).Sub(rat(v), lo), width)
		i := new(big.Int).Quo(q.Num(), q.Denom())
		if !i.IsInt64() || i.Sign() < 0 {
			continue // outside [lo, hi]: not from this summary
		}
		counts[min(int(i.Int64()), bins-1)] += n
	}
	labels := make([]string, bins)
	dec := 0
	if !whole {
		dec = 2
		for _, v := range []string{ns.Min, ns.Max} {
			if _, frac, ok := strings.Cut(v, "."); ok {
				dec = max(dec, min(len(frac)+1, MaxNumberDecimals))
			}
		}
	}
	for i := range labels {
		from := new(big.Rat).Add(lo, new(big.Rat).Mul(width, big.NewRat(int64(i), 1)))
		switch {
		case whole && width.Cmp(big.NewRat(1, 1)) == 0:
			labels[i] = roundRat(from, 0)
		case whole:
			to := new(big.Rat).Add(from, new(big.Rat).Sub(width, big.NewRat(1, 1)))
			if to.Cmp(hi) > 0 {
				to = hi
			}
			labels[i] = roundRat(from, 0)
			if to.Cmp(from) > 0 {
				labels[i] += "–" + roundRat(to, 0)
			}
		default:
			to := new(big.Rat).Add(from, width)
			labels[i] = roundRat(from, dec) + "–" + roundRat(to, dec)
		}
	}
	return labels, counts
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (numberKind) Columns(Question) []string { return []string{""} }

// CellTypes: a number.
func (numberKind) CellTypes(Question) []CellType { return []CellType{CellNumber} }

func (numberKind) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is the number as a JSON number, exactly as stored.
func (numberKind) Value(_ Question, qa QuestionAnswer) any {
	if _, problem := canonicalNumber(qa.Answer); qa.Answer == "" || !problem.IsZero() {
		return nil
	}
	return json.Number(qa.Answer)
}

// SQLRows: the canonical decimal in the numeric column.
func (k numberKind) SQLRows(q Question, qa QuestionAnswer) []SQLRow {
	row := SQLRow{Text: qa.Answer}
	if k.Value(q, qa) != nil {
		row.Number = qa.Answer
	}
	return []SQLRow{row}
}

// StatVars: those of the CSV export's columns, as they are.
func (k numberKind) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k numberKind) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }
