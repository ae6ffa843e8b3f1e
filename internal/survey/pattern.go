package survey

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"sync"
	"unicode/utf8"
)

// Bounds of a short text's pattern and its message, in characters.
const (
	MaxPatternLength        = 200
	MaxPatternMessageLength = 200
)

// PatternMessage is the designer's message of a question's pattern, as a
// Msg's argument: the web layer puts it in the respondent's language from
// the question's translation (it is no key of the catalogs).
type PatternMessage string

// validatePattern checks a short text's pattern: at most MaxPatternLength
// characters, a regular expression Go's regexp reads (RE2: no
// backreferences or lookarounds, and matching in time linear in the
// answer's length, whatever the pattern), and a message for people.
func validatePattern(q Question, key string, f fieldErrors) {
	if q.Pattern == "" {
		return
	}
	if n := utf8.RuneCountInString(q.Pattern); n > MaxPatternLength {
		f.add(key+".pattern", "Keep the pattern to %d characters (it has %d).", MaxPatternLength, n)
	} else if _, err := compilePattern(q.Pattern); err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			f.add(key+".pattern", "This is not a regular expression Go can read (RE2): %s in %q.", se.Code, se.Expr)
		} else {
			f.add(key+".pattern", "This is not a regular expression Go can read (RE2).")
		}
	}
	switch n := utf8.RuneCountInString(q.PatternMessage); {
	case q.PatternMessage == "":
		f.add(key+".patternMessage", "Say what an answer should look like: people whose answer does not fit the pattern read this.")
	case n > MaxPatternMessageLength:
		f.add(key+".patternMessage", "Keep the message to %d characters (it has %d).", MaxPatternMessageLength, n)
	case !IsCleanLine(q.PatternMessage):
		f.add(key+".patternMessage", "The message may not contain control characters or direction overrides.")
	}
}

// patterns holds the compiled patterns, by pattern, so that each is
// compiled once a process (at most maxPatterns of them: past that the
// cache starts again).
var patterns = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

const maxPatterns = 1000

// compilePattern compiles a pattern to match a whole answer.
func compilePattern(p string) (*regexp.Regexp, error) {
	patterns.Lock()
	re, ok := patterns.m[p]
	patterns.Unlock()
	if ok {
		return re, nil
	}
	// Read alone first: "a)|(b" is no pattern, though wrapped it would
	// read as one that matches more than whole answers.
	if _, err := syntax.Parse(p, syntax.Perl); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return nil, err
	}
	patterns.Lock()
	if len(patterns.m) >= maxPatterns {
		patterns.m = map[string]*regexp.Regexp{}
	}
	patterns.m[p] = re
	patterns.Unlock()
	return re, nil
}
