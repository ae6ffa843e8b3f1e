package survey

import (
	"math"
	"testing"
)

// TestChiSquareP checks the chi-square distribution's upper tail against
// values from outside this code: R's pchisq(x, df, lower.tail=FALSE)
// (R 4, printed with 17 digits), and closed forms for 1, 2 and 4 degrees
// of freedom (erfc(√(x/2)); e^(-x/2); e^(-x/2)(1+x/2)).
func TestChiSquareP(t *testing.T) {
	tests := []struct {
		x    float64
		df   int
		want float64
	}{
		// R.
		{3.841458820694124, 1, 0.049999999999999975}, // the 5% point of df 1
		{1, 1, 0.317310507862914148},
		{10, 5, 0.075235246146512197},
		{0.5, 3, 0.918891411654675916},
		{25, 12, 0.014822874597441558},
		{100, 60, 0.00091682886145608015},
		{0.001, 2, 0.99950012497916929100},
		{7.5, 7, 0.37873690604821297345},
		{50, 30, 0.01240206071890058263},
		{0.79365079365079361, 1, 0.37299848361348720},
		{22.503818141734808, 6, 9.8088729289587612e-04},
		// Closed forms.
		{0.2, 1, math.Erfc(math.Sqrt(0.1))},
		{6.63, 1, math.Erfc(math.Sqrt(6.63 / 2))},
		{2, 2, math.Exp(-1)},
		{30, 2, math.Exp(-15)},
		{3, 4, math.Exp(-1.5) * 2.5},
		{0.01, 4, math.Exp(-0.005) * 1.005},
		// Ends.
		{0, 3, 1},
		{-1, 3, 1},
	}
	for _, tc := range tests {
		if got := ChiSquareP(tc.x, tc.df); math.Abs(got-tc.want) > 1e-9 || math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("ChiSquareP(%v, %d) = %.17g, want %.17g", tc.x, tc.df, got, tc.want)
		}
	}
	for _, bad := range [][2]float64{{0, 1}, {-1, 1}, {1, -1}, {math.NaN(), 1}} {
		if got := UpperGamma(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("UpperGamma(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
	if UpperGamma(3, math.Inf(1)) != 0 {
		t.Error("UpperGamma(3, +Inf) is not 0")
	}
}

// TestChiSquareTest checks the test of tables whose statistic, degrees of
// freedom and p-value R's chisq.test(m, correct=FALSE) gives, and the
// cells whose expected count is below 5 (sum(chisq.test(m)$expected < 5)).
func TestChiSquareTest(t *testing.T) {
	tests := []struct {
		name   string
		counts [][]int64
		stat   float64
		df     int
		p      float64
		low    int
		cells  int
		valid  bool
	}{
		{"2×2", [][]int64{{10, 20}, {30, 40}}, 0.79365079365079361, 1, 0.37299848361348720, 0, 4, true},
		{"3×4", [][]int64{{12, 5, 7, 9}, {3, 15, 8, 4}, {6, 7, 20, 11}}, 22.503818141734808, 6, 9.8088729289587612e-04, 0, 12, true},
		{"small: every cell expects fewer than 5", [][]int64{{3, 1}, {2, 4}}, 1.66666666666666652, 1, 0.19670560245894694, 4, 4, true},
		// An empty row and an empty column are left out: the 2×2 above.
		{"empty row and column", [][]int64{{10, 0, 20}, {0, 0, 0}, {30, 0, 40}}, 0.79365079365079361, 1, 0.37299848361348720, 0, 4, true},
		{"independent", [][]int64{{10, 20}, {20, 40}}, 0, 1, 1, 0, 4, true},
		{"one row", [][]int64{{4, 5, 6}}, 0, 0, 0, 0, 3, false},
		{"one column left", [][]int64{{4, 0}, {5, 0}}, 0, 0, 0, 0, 2, false},
		{"nothing", nil, 0, 0, 0, 0, 0, false},
		{"all zero", [][]int64{{0, 0}, {0, 0}}, 0, 0, 0, 0, 0, false},
	}
	for _, tc := range tests {
		got := ChiSquareTest(tc.counts)
		if got.Valid != tc.valid || got.DF != tc.df || got.Low != tc.low || got.Cells != tc.cells ||
			math.Abs(got.Statistic-tc.stat) > 1e-9 || math.Abs(got.P-tc.p) > 1e-9 {
			t.Errorf("%s: %+v; want statistic %v, df %d, p %v, low %d of %d, valid %v", tc.name, got, tc.stat, tc.df, tc.p, tc.low, tc.cells, tc.valid)
		}
	}
}
