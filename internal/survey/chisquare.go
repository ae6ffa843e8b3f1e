package survey

import "math"

// ChiSquare is Pearson's chi-square test of independence of a table of
// counts: its statistic, degrees of freedom and p-value (the chance of a
// statistic at least this large were the rows and columns independent),
// computed on the rows and columns that hold a count (an empty one says
// nothing of independence). Low counts the cells whose expected count is
// below 5, of Cells: with any, the test may not be reliable.
type ChiSquare struct {
	Statistic float64
	DF        int
	P         float64
	Low       int
	Cells     int
	// Valid: the table has at least two rows and two columns that hold a
	// count, so that there is something to test (DF > 0).
	Valid bool
}

// MinExpected is the expected count below which a cell makes the test
// unreliable.
const MinExpected = 5

// ChiSquareTest tests the independence of counts' rows and columns (each
// row as long as the first).
func ChiSquareTest(counts [][]int64) ChiSquare {
	var rows, cols []int
	var rowSum, colSum []float64
	var total float64
	if len(counts) == 0 {
		return ChiSquare{}
	}
	width := len(counts[0])
	colSum = make([]float64, width)
	for i, r := range counts {
		var s float64
		for j, c := range r[:width] {
			s += float64(c)
			colSum[j] += float64(c)
		}
		if s > 0 {
			rows = append(rows, i)
			rowSum = append(rowSum, s)
			total += s
		}
	}
	for j, s := range colSum {
		if s > 0 {
			cols = append(cols, j)
		}
	}
	out := ChiSquare{Cells: len(rows) * len(cols)}
	if len(rows) < 2 || len(cols) < 2 {
		return out
	}
	out.DF = (len(rows) - 1) * (len(cols) - 1)
	out.Valid = true
	for ri, i := range rows {
		for _, j := range cols {
			e := rowSum[ri] * colSum[j] / total
			if e < MinExpected {
				out.Low++
			}
			d := float64(counts[i][j]) - e
			out.Statistic += d * d / e
		}
	}
	out.P = ChiSquareP(out.Statistic, out.DF)
	return out
}

// ChiSquareP is the upper tail of the chi-square distribution of df
// degrees of freedom at x: the chance of a statistic of at least x.
func ChiSquareP(x float64, df int) float64 {
	if x <= 0 {
		return 1
	}
	return UpperGamma(float64(df)/2, x/2)
}

// UpperGamma is the regularised upper incomplete gamma function Q(a, x) =
// Γ(a, x) / Γ(a), for a > 0 and x ≥ 0: by its series below a+1, by its
// continued fraction (modified Lentz) above (Numerical Recipes, 6.2). It
// is accurate to about 1e-14 relative, and NaN for a ≤ 0 or x < 0.
func UpperGamma(a, x float64) float64 {
	switch {
	case a <= 0 || x < 0 || math.IsNaN(a) || math.IsNaN(x):
		return math.NaN()
	case x == 0:
		return 1
	case math.IsInf(x, 1):
		return 0
	}
	lg, _ := math.Lgamma(a)
	front := math.Exp(a*math.Log(x) - x - lg) // x^a e^-x / Γ(a)
	if x < a+1 {
		// P(a, x) = front Σ x^n / (a (a+1) … (a+n)).
		term, sum := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-16 {
				break
			}
		}
		return max(0, 1-front*sum)
	}
	// Q(a, x) = front / (x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- …))).
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for n := 1; n < 1000; n++ {
		an := -float64(n) * (float64(n) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		delta := d * c
		h *= delta
		if math.Abs(delta-1) < 1e-16 {
			break
		}
	}
	return min(1, front*h)
}
