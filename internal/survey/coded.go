package survey

import (
	"strconv"
	"strings"
)

// StatVar is one variable of the exports for statistics packages (SPSS
// and R, package codebook): a column of the coded data file, with what
// the package needs to know of it. A kind gives its question's variables
// (Kind.StatVars) and an answer's values of them (Kind.StatCells); the
// codebook names them (q1, q1_2 …), labels them with the question's text
// and writes the syntax.
type StatVar struct {
	// Suffix follows the question's variable name: "" for the question's
	// one variable, else "_" and digits or lower-case letters ("_2",
	// "_other"), unique among the question's variables.
	Suffix string
	// Label is what the variable holds for people, after the question's
	// text ("Red" for a checkbox's choice, "Rank 1"); "" for the question
	// itself.
	Label string
	// Type is CellNumber (a number, or a code of Values), CellDate (a
	// day, YYYY-MM-DD) or CellText.
	Type CellType
	// Values name the codes of a coded variable (a number variable), in
	// the order they are offered; nil for a variable of plain values.
	Values []ValueLabel
	// Scale says the variable's values are numbers on a scale, of which
	// Values name some only (its ends): they stay numbers (not factors,
	// in R).
	Scale bool
}

// ValueLabel names one code of a coded variable.
type ValueLabel struct {
	Code  int
	Label string
}

// Coded reports whether v is a coded variable: a number that stands for
// one of its Values.
func (v StatVar) Coded() bool { return v.Type == CellNumber && len(v.Values) > 0 && !v.Scale }

// plainVariables are the variables of a kind whose statistics export is
// its CSV export: a variable per column, of the column's type, labelled
// with the column's name (the question's when it has one column).
func plainVariables(k Kind, q Question) []StatVar {
	cols, types := k.Columns(q), k.CellTypes(q)
	out := make([]StatVar, len(cols))
	for i, c := range cols {
		out[i] = StatVar{Label: c, Type: types[i]}
		if len(cols) > 1 {
			out[i].Suffix = "_" + strconv.Itoa(i+1)
		}
	}
	return out
}

// choiceValues are choices coded 1, 2 … in their order, and "Other" after
// them when other is set.
func choiceValues(choices []string, other bool) []ValueLabel {
	out := make([]ValueLabel, 0, len(choices)+1)
	for i, c := range choices {
		out = append(out, ValueLabel{Code: i + 1, Label: c})
	}
	if other {
		out = append(out, ValueLabel{Code: len(choices) + 1, Label: OtherLabel})
	}
	return out
}

// choiceCode is the code of a stored choice among choices (1 first), the
// code of "Other" for an "Other" text (OtherMark), "" for no answer or a
// choice the list lacks.
func choiceCode(choices []string, stored string) string {
	if stored == "" {
		return ""
	}
	if strings.HasPrefix(stored, OtherMark) {
		return strconv.Itoa(len(choices) + 1)
	}
	for i, c := range choices {
		if c == stored {
			return strconv.Itoa(i + 1)
		}
	}
	return ""
}

// scaleValues name the ends of a scale from low to high, those that have
// a label (nil when neither has).
func scaleValues(low, high int, lowLabel, highLabel string) []ValueLabel {
	var out []ValueLabel
	if lowLabel != "" {
		out = append(out, ValueLabel{Code: low, Label: lowLabel})
	}
	if highLabel != "" && high != low {
		out = append(out, ValueLabel{Code: high, Label: highLabel})
	}
	return out
}
