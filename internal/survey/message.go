package survey

import (
	"fmt"
	"strconv"
)

// Msg is words for a person: a format in English and its arguments. Its
// String is the English; the web layer may put it in the respondent's
// language, its Format being the key of the catalogs (internal/i18n). An
// argument that is a Msg is put in the same language; a Quantity is a number
// that English spells ("two") and other languages write in digits.
type Msg struct {
	Format string
	Args   []any
}

// M is the Msg of format and args.
func M(format string, args ...any) Msg { return Msg{Format: format, Args: args} }

// IsZero reports whether m says nothing.
func (m Msg) IsZero() bool { return m.Format == "" }

// String is m in English.
func (m Msg) String() string {
	if len(m.Args) == 0 {
		return m.Format
	}
	return fmt.Sprintf(m.Format, m.Args...)
}

// Quantity is a number of things, which English spells up to ten.
type Quantity int

// String is the number in English words up to ten, in digits above.
func (c Quantity) String() string {
	if c >= 0 && c <= 10 {
		return []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}[c]
	}
	return strconv.Itoa(int(c))
}
